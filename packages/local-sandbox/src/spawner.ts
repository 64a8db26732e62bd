import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { SandboxFailureError } from './errors/sandbox-failure-error';
import { LineChannel } from './line-channel';

/** The Python source of the spawner; it runs with `python3 -c`, from the host's Debian Python. */
const SPAWNER_SOURCE = readFileSync(new URL('./spawner.py', import.meta.url), 'utf8');

/** How a spawned process ended. */
export interface ExitStatus {
  code: number | null;
  signal: number | null;
}

export interface SpawnRequest {
  argv: readonly string[];
  env: Record<string, string>;
  /** Target fd → path of a named pipe the spawner creates; fd 0 is /dev/null. */
  fifos: Record<number, string>;
  /** CPU niceness to start at. */
  nice: number;
  /** Target fd → a file the spawner opens read-only for the process. */
  opens?: Record<number, string>;
  /** A tmpfs the spawner mounts at `path` (a new directory) first, owned by `uid`; see {@link Spawner.unmount}. */
  tmpfs?: { path: string; bytes: number; uid: number };
  /** The cgroup directories the process is started in (one per controller), and where the spawner returns. */
  cgroups?: { dirs: readonly string[]; home: readonly string[] };
  /** `oom_score_adj` the process starts with (inherited by all it forks); the spawner's own otherwise. */
  oomScoreAdj?: number;
}

/** A process the spawner started: its pid, and how it ended once it has. */
export interface Spawned {
  pid: number;
  exited: Promise<ExitStatus>;
  /** SIGKILLs its process group, unless it has already been reaped. */
  kill(): void;
}

interface Pending {
  started: (pid: number) => void;
  failed: (error: Error) => void;
  ended: (status: ExitStatus) => void;
  /** Set once reported; the exit may be reported before the pid. */
  pid?: number;
  exited?: boolean;
}

/**
 * The executor's side of spawner.py: a small long-lived process that starts sandboxes with posix_spawn, so the
 * API process never forks itself (each fork of a large Node process blocks its event loop for milliseconds).
 */
/**
 * The spawner needs nothing from our environment. Built through Object.create because the dashboard type-checks
 * this file too (via the API's router types), under Next's ProcessEnv augmentation that requires NODE_ENV.
 */
const EMPTY_ENV = Object.create(null) as NodeJS.ProcessEnv;
/** How long a spawner told to stop may take to clean up before it is killed. */
const CLOSE_DEADLINE_MS = 5_000;

export class Spawner {
  readonly #process: ChildProcess;
  readonly #pending = new Map<number, Pending>();
  #next = 0;
  #dead: Error | undefined;

  /** `maxOpenFiles`: the `RLIMIT_NOFILE` (soft and hard) of every process it starts. */
  constructor(maxOpenFiles: number) {
    this.#process = spawn(
      '/usr/bin/python3',
      ['-I', '-c', SPAWNER_SOURCE, String(process.pid), String(maxOpenFiles)],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
        env: EMPTY_ENV,
        // Sandboxes may run as a uid that cannot enter the API's working directory.
        cwd: '/',
      },
    );
    this.#process.stdin?.on('error', () => {});
    this.#process.on('exit', (code, signal) =>
      this.#fail(new Error(`the sandbox spawner exited (${code ?? signal})`)),
    );
    this.#process.on('error', (error) => this.#fail(error));
    void this.#read(new LineChannel(this.#process.stdout as NonNullable<ChildProcess['stdout']>));
  }

  /** False once the spawner process is gone; make a new one. */
  get alive(): boolean {
    return this.#dead === undefined;
  }

  /** Starts a process; rejects with SandboxFailureError if it cannot be started. */
  spawn(request: SpawnRequest): Promise<Spawned> {
    if (this.#dead) return Promise.reject(new SandboxFailureError(this.#dead.message, { cause: this.#dead }));
    const id = (this.#next += 1);
    let ended!: (status: ExitStatus) => void;
    const exited = new Promise<ExitStatus>((resolve) => (ended = resolve));
    const started = new Promise<number>((resolve, reject) => {
      this.#pending.set(id, { started: resolve, failed: reject, ended });
    });
    this.#send({
      op: 'spawn',
      id,
      argv: request.argv,
      env: request.env,
      nice: request.nice,
      fifos: request.fifos,
      opens: request.opens ?? {},
      cgroups: request.cgroups?.dirs ?? [],
      home_cgroups: request.cgroups?.home ?? [],
      ...(request.tmpfs ? { tmpfs: request.tmpfs } : {}),
      ...(request.oomScoreAdj === undefined ? {} : { oom_score_adj: request.oomScoreAdj }),
    });
    return started.then((pid) => ({ pid, exited, kill: () => this.#send({ op: 'kill', id }) }));
  }

  /** Unmounts and removes a tmpfs of {@link SpawnRequest.tmpfs} once nothing uses it any more. */
  unmount(path: string): void {
    this.#send({ op: 'unmount', path });
  }

  /**
   * Ends the spawner and waits for it: told to stop, it kills every sandbox it started and unmounts their tmpfs;
   * one that does not exit within {@link CLOSE_DEADLINE_MS} is killed (its sandboxes die with it).
   */
  async close(): Promise<void> {
    if (this.#process.exitCode !== null || this.#process.signalCode !== null) return;
    const exited = once(this.#process, 'exit');
    this.#process.stdin?.end();
    const timer = setTimeout(() => this.#process.kill('SIGKILL'), CLOSE_DEADLINE_MS);
    await exited;
    clearTimeout(timer);
  }

  #send(message: object): void {
    if (!this.#dead) this.#process.stdin?.write(`${JSON.stringify(message)}\n`);
  }

  async #read(lines: LineChannel): Promise<void> {
    for (let line = await lines.next(); line !== undefined; line = await lines.next()) {
      const message = JSON.parse(line) as {
        id: number;
        pid?: number;
        error?: string;
        exit?: number | null;
        signal?: number | null;
      };
      const pending = this.#pending.get(message.id);
      if (!pending) continue;
      if (message.error !== undefined) {
        pending.failed(new SandboxFailureError(`cannot start a sandbox: ${message.error}`));
        pending.ended({ code: null, signal: null });
        this.#pending.delete(message.id);
        continue;
      }
      if (message.pid !== undefined) {
        pending.pid = message.pid;
        pending.started(message.pid);
      } else {
        pending.exited = true;
        pending.ended({ code: message.exit ?? null, signal: message.signal ?? null });
      }
      if (pending.pid !== undefined && pending.exited) this.#pending.delete(message.id);
    }
  }

  #fail(error: Error): void {
    this.#dead ??= error;
    for (const pending of this.#pending.values()) {
      pending.failed(new SandboxFailureError(error.message, { cause: error }));
      pending.ended({ code: null, signal: null });
    }
    this.#pending.clear();
  }
}
