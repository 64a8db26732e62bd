import type { ImportProgress } from '@fusebox/rollouts';

const WIDTH = 28;
const REDRAW_MS = 100;

/** Bytes as people read them: 1.2 GB, 350 MB, 12 KB. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value >= 100 || unit === 0 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

/**
 * The import's progress bar on a terminal's stderr: one line redrawn in place at most ten times a second,
 * with bytes, items (`unit`: samples, tasks) and throughput. Off a terminal it draws nothing (logs and CI get
 * the per-file lines). `amount` formats the measure of progress, bytes unless said otherwise.
 */
export function progressBar(
  stream: NodeJS.WriteStream = process.stderr,
  unit = 'samples',
  amount: (value: number) => string = formatBytes,
) {
  const startedAt = performance.now();
  let drawnAt = 0;
  let visible = false;
  const draw = (progress: ImportProgress, force = false) => {
    const now = performance.now();
    if (!stream.isTTY || (!force && now - drawnAt < REDRAW_MS)) return;
    drawnAt = now;
    const ratio = progress.bytesTotal > 0 ? Math.min(1, progress.bytesDone / progress.bytesTotal) : 1;
    const filled = Math.round(ratio * WIDTH);
    const rate = progress.bytesDone / Math.max(0.001, (now - startedAt) / 1000);
    stream.write(
      `\r[${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${String(Math.floor(ratio * 100)).padStart(3)}% ` +
        `${amount(progress.bytesDone)} / ${amount(progress.bytesTotal)} · ` +
        `${progress.samples.toLocaleString('en-US')} ${unit} · ${amount(rate)}/s\x1b[K`,
    );
    visible = true;
  };
  return {
    update: (progress: ImportProgress) => draw(progress),
    /** Clears the bar so a message can be printed on a clean line; the next update redraws it. */
    clear: () => {
      if (visible) stream.write('\r\x1b[K');
      visible = false;
    },
    finish: (progress: ImportProgress) => {
      draw(progress, true);
      if (visible) stream.write('\n');
      visible = false;
    },
  };
}
