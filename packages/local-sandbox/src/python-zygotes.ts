import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BackgroundStarts } from './background-starts';
import type { SandboxCgroup } from './cgroups';
import { processTree } from './process-tree';
import type { Sandbox } from './sandbox';
import type { SandboxLauncher, StartOptions } from './sandbox-launcher';
import { RUN_STDIO } from './step-driver';

/** The zygote's Python source (see python-zygote.py), opened for it on {@link SOURCE_FD}. */
const ZYGOTE_SOURCE = fileURLToPath(new URL('./python-zygote.py', import.meta.url));
/** The session interpreter's source, which a session zygote loads before its first fork (on {@link KERNEL_FD}). */
const KERNEL_SOURCE = fileURLToPath(new URL('./session/kernel.py', import.meta.url));
/** Above the fds bubblewrap reads its set-up from (7 on; the zygote closes every fd from 7 once started). */
const SOURCE_FD = 20;
const KERNEL_FD = 21;
/**
 * Debian's `/usr/bin/python3 -c` reading the zygote from its fd: not passed in argv, which every process a run
 * forks would carry (tools that list processes, such as `ps`, would have kilobytes per process to read).
 */
const BOOTSTRAP = `import os; exec(compile(os.read(${SOURCE_FD}, 1 << 22), "python-zygote.py", "exec"))`;

/** How zygotes are made and how long one lives. */
export interface ZygoteSettings {
  /** Modules each zygote imports before its first run; one that is not installed is skipped. */
  modules: readonly string[];
  /** Runs a zygote forks before it is replaced (its address-space layout and hash seed then change). */
  maxRuns: number;
  /** How long a zygote lives before it is replaced, in ms, for the same reason. */
  maxAgeMs: number;
  /** Size of a run's tmpfs (its /tmp, holding the working directory and /dev/shm), and its largest file. */
  diskBytes: number;
  /** `RLIMIT_NPROC` of a run (its own user namespace counts it), or none. */
  maxProcesses: number | undefined;
  /**
   * How long a run that finds no zygote idle waits for one to come back before it goes cold, in ms (0: not at
   * all). A forked run takes a few ms of CPU where a cold one takes a whole interpreter's start: a short wait
   * lets a burst of short runs share the zygotes, while a run that sleeps keeps its zygote and the rest go cold.
   */
  waitMs: number;
  /** The pid 1 of each run: run-init's path (see run-init.c), or null for a copy of the zygote. */
  runInit: string | null;
}

/** A live zygote, lent to one run at a time. */
export interface Zygote {
  readonly sandbox: Sandbox;
  /**
   * The zygote process's own pid on the host: during a run, its one Python child is the run's first process (its
   * init, or with run-init the program).
   */
  readonly pid: number;
  readonly startedAt: number;
  runs: number;
  /** While lent: the run's own cgroup (see {@link SandboxLauncher.runCgroup}), when cgroups are available. */
  cgroup: SandboxCgroup | undefined;
}

/**
 * Keeps `size` Python zygotes (one per executor slot, so no two runs ever share one, nor its host uid or network
 * namespace), lends an idle one to a run, and takes it back once it has said `ready` again. A zygote that has
 * forked `maxRuns` runs or lived `maxAgeMs`, or whose run failed in any way (a timeout kills the whole zygote),
 * is disposed of and replaced in the background. When none is idle, nor comes back within `waitMs`, {@link take}
 * returns undefined and the run takes the cold path: a zygote being replaced, or one that crashed, never fails a request.
 */
export class PythonZygotes {
  readonly #launcher: SandboxLauncher;
  readonly #command: string[];
  readonly #settings: ZygoteSettings;
  readonly #size: number;
  readonly #idle: Zygote[] = [];
  /** Runs waiting for a zygote to come back (see `waitMs`), oldest first: each is woken when one does. */
  readonly #waiting: Array<() => void> = [];
  readonly #background: BackgroundStarts;
  readonly #onError: (error: unknown) => void;
  /** Zygotes starting, lent out, or finishing a run: with the idle ones, never more than `size`. */
  #busy = 0;
  #lent = 0;
  #closed = false;

  constructor(
    launcher: SandboxLauncher,
    settings: ZygoteSettings,
    size: number,
    onError: (error: unknown) => void,
  ) {
    this.#launcher = launcher;
    this.#settings = settings;
    this.#size = size;
    this.#onError = onError;
    this.#background = new BackgroundStarts(onError, () => this.#refill());
    this.#command = zygoteCommand(settings);
    this.#refill();
  }

  /** Zygotes ready for a run now. */
  get idle(): number {
    return this.#idle.length;
  }

  /** Runs lent a zygote so far (the others went cold). */
  get lent(): number {
    return this.#lent;
  }

  /**
   * An idle live zygote, waiting up to `waitMs` (in FIFO order with other waiting runs) for one to come back when
   * none is idle; undefined when none did (the caller runs the code cold), or when `signal` aborts first (the
   * run then takes no zygote: it would run its program for a caller that has gone).
   */
  async take({ signal }: { signal?: AbortSignal } = {}): Promise<Zygote | undefined> {
    const deadline = performance.now() + this.#settings.waitMs;
    for (;;) {
      if (signal?.aborted) {
        // A wake this run got and did not use goes to the next waiting run.
        if (this.#idle.length > 0) this.#waiting.shift()?.();
        return undefined;
      }
      const zygote = this.#takeIdle();
      const left = deadline - performance.now();
      if (zygote || this.#closed || left <= 0) return zygote;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', leave);
          resolve();
        };
        const leave = () => {
          const at = this.#waiting.indexOf(done);
          if (at >= 0) this.#waiting.splice(at, 1);
          done();
        };
        const timer = setTimeout(leave, left);
        signal?.addEventListener('abort', leave, { once: true });
        this.#waiting.push(done);
      });
    }
  }

  #takeIdle(): Zygote | undefined {
    for (let zygote = this.#idle.shift(); zygote; zygote = this.#idle.shift()) {
      if (zygote.sandbox.alive && !this.#expired(zygote)) {
        try {
          zygote.cgroup = this.#launcher.runCgroup();
        } catch (error) {
          this.#onError(error); // no cgroup for the run: it goes cold, and the zygote stays idle
          this.#idle.unshift(zygote);
          return undefined;
        }
        this.#busy += 1;
        this.#lent += 1;
        zygote.runs += 1;
        zygote.sandbox.prioritise();
        return zygote;
      }
      this.#dispose(zygote);
    }
    this.#refill();
    return undefined;
  }

  /**
   * Takes back a zygote after its run: kept when `reusable` (the run ended by itself) and it says `ready` for
   * the next one, otherwise killed and replaced.
   */
  giveBack(zygote: Zygote, reusable: boolean): void {
    const { cgroup } = zygote;
    zygote.cgroup = undefined;
    if (cgroup) this.#background.track(cgroup.remove());
    const returned = (async () => {
      const ready = reusable && (await zygote.sandbox.events.next()) === 'ready';
      this.#busy -= 1;
      if (ready && !this.#closed && !this.#expired(zygote)) this.#makeIdle(zygote);
      else this.#dispose(zygote);
      this.#refill();
    })();
    this.#background.track(returned);
  }

  /** Stops starting zygotes, disposes of the idle ones and waits for every disposal. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const wake of this.#waiting.splice(0)) wake();
    for (const zygote of this.#idle.splice(0)) this.#dispose(zygote);
    await this.#background.settled();
  }

  /** Puts `zygote` among the idle ones, and wakes the run that has waited longest for one. */
  #makeIdle(zygote: Zygote): void {
    this.#idle.push(zygote);
    this.#waiting.shift()?.();
  }

  #expired(zygote: Zygote): boolean {
    return (
      zygote.runs >= this.#settings.maxRuns || performance.now() - zygote.startedAt >= this.#settings.maxAgeMs
    );
  }

  #dispose(zygote: Zygote): void {
    this.#background.track(zygote.sandbox.dispose());
  }

  #refill(): void {
    if (this.#closed || this.#background.paused) return;
    while (this.#idle.length + this.#busy < this.#size) {
      this.#busy += 1;
      this.#background.track(
        this.#launcher.start(this.#command, zygoteStartOptions(false)).then(
          (sandbox) => {
            this.#busy -= 1;
            const pid = zygoteProcess(sandbox);
            const zygote = {
              sandbox,
              pid: pid ?? 0,
              startedAt: performance.now(),
              runs: 0,
              cgroup: undefined,
            };
            if (pid === undefined) {
              this.#dispose(zygote);
              this.#background.failed(
                new Error('a zygote started, but its Python process is not in its sandbox'),
              );
            } else {
              this.#background.started();
              if (this.#closed) this.#dispose(zygote);
              else this.#makeIdle(zygote);
            }
          },
          (error: unknown) => {
            this.#busy -= 1;
            this.#background.failed(error);
          },
        ),
      );
    }
  }
}

/** The host pid of the zygote's Python process in its sandbox, if it is there. */
export function zygoteProcess(sandbox: Sandbox): number | undefined {
  return processTree(sandbox.pid).find(isPython);
}

/** How a zygote's sandbox starts: in the background, with its source (and a session zygote's kernel) to read. */
export function zygoteStartOptions(sessions: boolean): StartOptions {
  const files: Record<number, string> = { [SOURCE_FD]: ZYGOTE_SOURCE };
  if (sessions) files[KERNEL_FD] = KERNEL_SOURCE;
  return { background: true, zygote: { files } };
}

/** True for a Python process (bubblewrap, which starts a zygote, runs as `bwrap`; a run's pid 1 as `run-init`). */
export function isPython(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8') === 'python3\n';
  } catch {
    return false;
  }
}

/** The zygote's command line: python-zygote.py and its configuration (see there). */
export function zygoteCommand(
  settings: Pick<ZygoteSettings, 'modules' | 'diskBytes' | 'maxProcesses'> &
    Partial<Pick<ZygoteSettings, 'runInit'>>,
  sessions = false,
): string[] {
  const config = {
    sessions,
    modules: settings.modules,
    fileSizeBytes: settings.diskBytes,
    diskBytes: settings.diskBytes,
    maxProcesses: settings.maxProcesses ?? null,
    stdio: RUN_STDIO,
    runInit: settings.runInit ?? null,
  };
  return ['/usr/bin/python3', '-c', BOOTSTRAP, JSON.stringify(config)];
}
