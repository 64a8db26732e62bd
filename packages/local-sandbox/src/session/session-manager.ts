import { randomUUID } from 'node:crypto';
import { SessionBusyError } from '../errors/session-busy-error';
import { SessionDeadError } from '../errors/session-dead-error';
import { SessionLimitError } from '../errors/session-limit-error';
import { ExecutorClosedError } from '../errors/executor-closed-error';
import { SessionNotFoundError } from '../errors/session-not-found-error';
import type { FifoGate } from '../fifo-gate';
import { type ExecutionTiming, gated } from '../gated';
import type { SandboxPool } from '../sandbox-pool';
import type { SessionZygotes } from './session-zygote';
import { writeFiles } from '../workdir-files';
import { type CellResult, Interpreter } from './interpreter';

export { DEAD_KERNEL_ERROR } from './interpreter';

/**
 * How a session's interpreter is limited. All optional.
 *
 * @example
 * const session = await executor.sessions.create({ memoryLimitMB: 1024, cellTimeoutMs: 10_000 });
 */
export interface SessionOptions {
  /** Address-space limit of the interpreter; -1 or undefined for none (the sandbox's memory cap still holds). */
  memoryLimitMB?: number;
  /** A cell running longer is stopped, and with it the interpreter. Default 30 000 ms. */
  cellTimeoutMs?: number;
  /** The session closes after this long without a cell. Default: the executor's `sessionIdleTimeoutMs`. */
  idleTimeoutMs?: number;
  /** Files (base64, like `/run_code`'s) written to the working directory before the first cell, and on restart. */
  files?: Record<string, string | null>;
}

/** What a session is now. */
export interface SessionInfo {
  id: string;
  /** False after a cell timed out or crashed the interpreter: restart the session to go on. */
  alive: boolean;
  /** Cells run since the interpreter started. */
  executionCount: number;
  createdAt: Date;
  lastUsedAt: Date;
  memoryLimitMB: number;
  cellTimeoutMs: number;
  idleTimeoutMs: number;
}

/** A cell's result with its queueing and timing. */
export interface CellExecution extends CellResult {
  sessionId: string;
  timing: ExecutionTiming;
}

const DEFAULT_CELL_TIMEOUT_MS = 30_000;

interface Session {
  info: SessionInfo;
  files: Record<string, string | null>;
  interpreter: Interpreter;
  /** Lets the interpreter's process go (back to the pool's disposal, or the forked session's). */
  release: () => void;
  busy: boolean;
  idleTimer: NodeJS.Timeout | undefined;
}

/**
 * The stateful sessions of one executor ("online sandbox"): a persistent sandboxed Python interpreter per
 * session id, so a T-turn episode runs T cells instead of replaying T(T+1)/2. Sessions live in this process's
 * memory; a cluster needs sticky routing by session id.
 */
export class SessionManager {
  readonly #sessions = new Map<string, Session>();
  readonly #pool: SandboxPool;
  readonly #zygotes: SessionZygotes | undefined;
  readonly #gate: FifoGate;
  readonly #limits: { maxSessions: number; idleTimeoutMs: number; outputLimitBytes: number };
  /** Sessions being opened: {@link closeAll} waits for them. */
  readonly #opening = new Set<Promise<unknown>>();
  #closed = false;

  /** Sessions fork from `zygotes` when one can fork now, and take a warm sandbox from `pool` otherwise. */
  constructor(
    pool: SandboxPool,
    zygotes: SessionZygotes | undefined,
    gate: FifoGate,
    limits: { maxSessions: number; idleTimeoutMs: number; outputLimitBytes: number },
  ) {
    this.#pool = pool;
    this.#zygotes = zygotes;
    this.#gate = gate;
    this.#limits = limits;
  }

  /** Open sessions now. */
  get size(): number {
    return this.#sessions.size;
  }

  /**
   * Opens a session with a fresh interpreter. Throws {@link SessionLimitError} when `maxSessions` are open,
   * `UnsafePathError` for a bad path in `files`, TypeError for bad options, `ExecutorClosedError` once
   * {@link closeAll} was called.
   */
  create(options: SessionOptions = {}): Promise<SessionInfo> {
    const opening = this.#open(options);
    this.#opening.add(opening);
    const opened = () => this.#opening.delete(opening);
    opening.then(opened, opened);
    return opening;
  }

  async #open(options: SessionOptions): Promise<SessionInfo> {
    if (this.#closed) throw new ExecutorClosedError();
    const settings = resolveSessionOptions(options, this.#limits.idleTimeoutMs);
    if (this.#sessions.size >= this.#limits.maxSessions)
      throw new SessionLimitError(this.#limits.maxSessions);
    const id = randomUUID();
    const now = new Date();
    const info: SessionInfo = {
      id,
      alive: true,
      executionCount: 0,
      createdAt: now,
      lastUsedAt: now,
      ...settings,
    };
    const files = options.files ?? {};
    const session: Session = {
      info,
      files,
      ...(await this.#startInterpreter(info, files)),
      busy: false,
      idleTimer: undefined,
    };
    if (this.#closed) {
      session.release();
      throw new ExecutorClosedError();
    }
    this.#sessions.set(id, session);
    this.#touch(session);
    return { ...info };
  }

  /** Throws {@link SessionNotFoundError} if the session is not open. */
  info(id: string): SessionInfo {
    const session = this.#get(id);
    return { ...session.info, alive: session.interpreter.alive };
  }

  /**
   * Runs one cell in the session's interpreter, after waiting for an executor slot (the wait does not count
   * against the cell's timeout). Throws {@link SessionBusyError} if a cell is running, {@link SessionDeadError}
   * if the interpreter is gone (restart it).
   */
  async run(
    id: string,
    code: string,
    { timeoutMs, signal }: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<CellExecution> {
    const session = this.#get(id);
    if (session.busy) throw new SessionBusyError(id);
    if (!session.interpreter.alive) throw new SessionDeadError(id, 'a cell timed out or crashed it');
    session.busy = true;
    try {
      const { result, timing } = await gated(
        this.#gate,
        () => session.interpreter.run(code, { timeoutMs: timeoutMs ?? session.info.cellTimeoutMs, signal }),
        { signal },
      );
      session.info.executionCount += 1;
      if (!session.interpreter.alive) {
        session.info.alive = false;
        session.release();
      }
      return { ...result, sessionId: id, timing };
    } finally {
      session.busy = false;
      this.#touch(session);
    }
  }

  /** Replaces the session's interpreter with a fresh one (state cleared, files written again), same id. */
  async restart(id: string): Promise<SessionInfo> {
    const session = this.#get(id);
    if (session.busy) throw new SessionBusyError(id);
    session.busy = true;
    try {
      const fresh = await this.#startInterpreter(session.info, session.files);
      session.interpreter.stop();
      session.release();
      Object.assign(session, fresh);
      session.info.alive = true;
      session.info.executionCount = 0;
      return { ...session.info };
    } finally {
      session.busy = false;
      this.#touch(session);
    }
  }

  /** Closes a session and stops its interpreter. Throws {@link SessionNotFoundError} if it is not open. */
  close(id: string): void {
    const session = this.#get(id);
    this.#drop(session);
  }

  /**
   * Closes every session, and waits for those being opened meanwhile (each is closed as it opens, its `create`
   * failing); later `create` calls fail at once.
   */
  async closeAll(): Promise<void> {
    this.#closed = true;
    for (const session of this.#sessions.values()) this.#drop(session);
    await Promise.allSettled([...this.#opening]);
  }

  async #startInterpreter(
    info: SessionInfo,
    files: Record<string, string | null>,
  ): Promise<Pick<Session, 'interpreter' | 'release'>> {
    const settings = {
      outputLimitBytes: this.#limits.outputLimitBytes,
      memoryLimitBytes: info.memoryLimitMB > 0 ? info.memoryLimitMB * 1024 * 1024 : undefined,
      firstCell: 1,
    };
    const forked = await this.#zygotes?.fork(files);
    if (forked) {
      return {
        interpreter: new Interpreter(forked, settings),
        release: () => this.#zygotes?.release(forked),
      };
    }
    const sandbox = await this.#pool.take();
    try {
      await writeFiles(sandbox.workdir, files);
    } catch (error) {
      this.#pool.release(sandbox);
      throw error;
    }
    return { interpreter: new Interpreter(sandbox, settings), release: () => this.#pool.release(sandbox) };
  }

  #get(id: string): Session {
    const session = this.#sessions.get(id);
    if (!session) throw new SessionNotFoundError(id);
    return session;
  }

  #touch(session: Session): void {
    session.info.lastUsedAt = new Date();
    clearTimeout(session.idleTimer);
    if (!this.#sessions.has(session.info.id)) return;
    session.idleTimer = setTimeout(() => {
      if (session.busy) this.#touch(session);
      else this.#drop(session);
    }, session.info.idleTimeoutMs);
    session.idleTimer.unref();
  }

  #drop(session: Session): void {
    clearTimeout(session.idleTimer);
    this.#sessions.delete(session.info.id);
    session.interpreter.stop();
    session.release();
  }
}

function resolveSessionOptions(
  options: SessionOptions,
  defaultIdleTimeoutMs: number,
): Pick<SessionInfo, 'memoryLimitMB' | 'cellTimeoutMs' | 'idleTimeoutMs'> {
  const positive = (name: 'cellTimeoutMs' | 'idleTimeoutMs', fallback: number) => {
    const value = options[name] ?? fallback;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new TypeError(
        `expected ${name} to be a positive number of milliseconds, got ${JSON.stringify(options[name])}`,
      );
    }
    return value;
  };
  const memoryLimitMB = options.memoryLimitMB ?? -1;
  if (!Number.isSafeInteger(memoryLimitMB)) {
    throw new TypeError(
      `expected memoryLimitMB to be an integer (-1 for none), got ${JSON.stringify(options.memoryLimitMB)}`,
    );
  }
  return {
    memoryLimitMB,
    cellTimeoutMs: positive('cellTimeoutMs', DEFAULT_CELL_TIMEOUT_MS),
    idleTimeoutMs: positive('idleTimeoutMs', defaultIdleTimeoutMs),
  };
}
