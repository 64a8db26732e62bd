import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { LineChannel } from './line-channel';
import { OWNER_PREFIX } from './process-owner';
import { trustedDirectory } from './trusted-directory';

/** The lease holder; it runs with `python3 -c`, from the host's Debian Python. */
const HOLDER_SOURCE = readFileSync(new URL('./uid-leases.py', import.meta.url), 'utf8');

/** Where a root Fusebox keeps its lease files: root's own directory, which no sandbox uid can reach. */
export const DEFAULT_UID_LEASE_DIR = '/var/lib/fusebox/uid-leases';

/** A block of sandbox uids this process holds until it exits. */
export interface UidBlock {
  first: number;
  /** Processes of a dead owner that still ran as the block's uids, killed before the block was handed out. */
  killed: number;
}

/**
 * This process's leases on blocks of the sandbox uid range, held by a small helper (`uid-leases.py`) through
 * flocked lease files, so that every Fusebox server on the machine gets blocks no other live one holds. The
 * kernel releases a dead server's locks, and the helper dies with this process, so a SIGKILLed server's blocks
 * are free at once; the next holder kills whatever still runs as their uids.
 */
export class UidLeases {
  readonly #process: ChildProcess;
  readonly #answers: LineChannel;
  /** Requests answer one at a time, in order. */
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(process: ChildProcess) {
    this.#process = process;
    this.#process.stdin?.on('error', () => {});
    this.#process.on('error', () => {});
    this.#answers = new LineChannel(process.stdout as NonNullable<ChildProcess['stdout']>);
  }

  /**
   * Starts the helper for `blocks` blocks of `size` uids from `first` on, keeping its lease files in `dir`;
   * undefined (having told `warn`) when `dir` is not root's own, where a sandbox or another user could steal
   * or fake a lease.
   */
  static open(
    dir: string,
    range: { first: number; size: number; blocks: number },
    warn: (message: string) => void,
  ): UidLeases | undefined {
    try {
      mkdirSync(dirname(dir), { recursive: true, mode: 0o755 });
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch {
      // Checked below.
    }
    if (!trustedDirectory(dir)) {
      warn(
        `the sandbox uid lease directory ${dir} is missing or others may write it: uids are not leased, so ` +
          'another Fusebox server on this machine may hand out the same ones',
      );
      return undefined;
    }
    const child = spawn(
      '/usr/bin/python3',
      [
        '-I',
        '-c',
        HOLDER_SOURCE,
        dir,
        String(range.first),
        String(range.size),
        String(range.blocks),
        OWNER_PREFIX,
        String(process.pid),
      ],
      { stdio: ['pipe', 'pipe', 'inherit'], env: Object.create(null) as NodeJS.ProcessEnv, cwd: '/' },
    );
    return new UidLeases(child);
  }

  /** A block no other live holder has; undefined when every block is held or the helper is gone. */
  lease(): Promise<UidBlock | undefined> {
    const answer = this.#queue.then(async () => {
      if (this.#process.exitCode !== null || this.#process.signalCode !== null) return undefined;
      this.#process.stdin?.write('lease\n');
      const line = await this.#answers.next();
      const match = line === undefined ? null : /^(\d+) (\d+)$/.exec(line);
      return match ? { first: Number(match[1]), killed: Number(match[2]) } : undefined;
    });
    this.#queue = answer.catch(() => undefined);
    return answer;
  }

  /** Releases every block: call once no sandbox runs as their uids any more. */
  async close(): Promise<void> {
    if (this.#process.exitCode !== null || this.#process.signalCode !== null) return;
    const exited = once(this.#process, 'exit');
    this.#process.stdin?.end();
    await exited;
  }
}
