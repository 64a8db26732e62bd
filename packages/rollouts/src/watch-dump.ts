import { watch } from 'node:fs';
import type { ImportDumpOptions, ImportSummary } from './import-dump';

/** How long a file must go unmodified before a last line without a newline counts as finished. */
const QUIET_MS = 5_000;

export interface WatchDumpOptions extends Omit<ImportDumpOptions, 'quietMs'> {
  signal: AbortSignal;
  /** How often to look again when the file system sends no event (network mounts send none). */
  intervalMs?: number;
  /** After each pass that added or rejected something. */
  onPass?(summary: ImportSummary): void;
  /** When the directory cannot be read yet (training has not created it) or a pass failed. */
  onWaiting?(reason: string): void;
}

/**
 * Tails a dump directory while training writes to it: imports what is new with `importDump` (straight into the
 * database, or through the server that holds it), then waits for a file-system event or the polling interval,
 * until `signal` aborts. Each pass is an ordinary idempotent import, so stopping and restarting the watcher never
 * duplicates a sample.
 */
export async function watchDump(
  importDump: (options: ImportDumpOptions) => Promise<ImportSummary>,
  options: WatchDumpOptions,
): Promise<void> {
  const intervalMs = options.intervalMs ?? 2_000;
  let lastWaiting = '';
  while (!options.signal.aborted) {
    try {
      const summary = await importDump({ ...options, quietMs: QUIET_MS });
      lastWaiting = '';
      if (summary.added > 0 || summary.rejected > 0) options.onPass?.(summary);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (reason !== lastWaiting) options.onWaiting?.(reason);
      lastWaiting = reason;
    }
    await changeOrTimeout(options.dir, intervalMs, options.signal);
  }
}

/** Resolves on the directory's next change, after `ms`, or on abort, whichever comes first. */
function changeOrTimeout(dir: string, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      watcher?.close();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    let watcher: ReturnType<typeof watch> | undefined;
    try {
      watcher = watch(dir, done);
      watcher.on('error', () => {});
    } catch {
      // The directory does not exist yet: the timer looks again.
    }
  });
}
