import { randomBytes } from 'node:crypto';
import { LimiterClosedError } from './errors/limiter-closed-error';
import { LimiterKeyCollisionError } from './errors/key-collision-error';
import { LimiterSharedSessionError } from './errors/shared-session-error';
import { LimiterTimeoutError } from './errors/limiter-timeout-error';
import { LimiterUnavailableError } from './errors/limiter-unavailable-error';
import { PermitLostError } from './errors/permit-lost-error';
import { abortable } from './abortable';
import { type AcquireDeadline, startDeadline } from './acquire-deadline';
import { FifoSemaphore } from './fifo-semaphore';
import type { AcquireOptions, Limiter, LimiterStats, Permit } from './limiter';
import {
  ACQUIRE_SQL,
  CREATE_KEY_TABLE_SQL,
  PROBE_LOCK_SQL,
  PROBE_UNLOCK_SQL,
  REGISTER_KEY_SQL,
  RELEASE_SQL,
  SET_LIMIT_SQL,
} from './limiter-sql';
import { lockNamespace } from './lock-namespace';
import { checkKey, checkLimit, checkPositiveInteger, checkRate, checkTimeout } from './options';
import { defaultHolderName } from './holder-name';
import { type ConnectionSource, type LimiterConnection, resolveConnect } from './pg-connection';
import { PgSession, describe } from './pg-session';
import { readStats } from './pg-stats';
import { INSUFFICIENT_PRIVILEGE, UNDEFINED_TABLE, sqlState } from './sqlstate';
import { withPermit } from './with-permit';

export type { LimiterConnection } from './pg-connection';

/** Options of `createPgLimiter`: where to connect, plus the key's settings. */
export type PgLimiterOptions = ConnectionSource & {
  /** The limiter's name; every process using the same database and key shares its slots. */
  key: string;
  /** At most this many permits in flight across the cluster. Sets the key's limit for every process. */
  limit: number;
  /** Default `timeoutMs` of acquires; Infinity (the default) waits for ever. */
  acquireTimeoutMs?: number;
  /**
   * Also cap how often permits start, cluster-wide: starts are at least 1/maxStartsPerSecond apart (a token
   * bucket of one token). Unset means no cap. Like `limit`, it is the key's setting for every process.
   */
  maxStartsPerSecond?: number;
  /**
   * At most this many of this process's acquires wait in Postgres at once, each on its own connection; the rest
   * wait in process, in order, for a place. Order across processes is exact while each has fewer waiters than
   * this. Connections per process are at most this + permits held + 1. Default 16.
   */
  maxWaitingConnections?: number;
  /** How stats name this process's permits. Default `host:pid`. */
  holderName?: string;
  /**
   * Longest the database may take to answer anything but the wait for a slot itself (opening a session,
   * release, stats, settings), and to answer a liveness probe while acquires wait. Past it the connection counts
   * as dead: a release gives the permit up with its connection, everything else rejects with
   * LimiterUnavailableError. Default 5000; Infinity for none.
   */
  databaseTimeoutMs?: number;
};

/** Default of `maxWaitingConnections`. */
export const DEFAULT_MAX_WAITING_CONNECTIONS = 16;

/** After a timeout, how long the database may take to report it before the connection is dropped instead. */
const TIMEOUT_GRACE_MS = 2_000;

/** Default of `databaseTimeoutMs`. */
export const DEFAULT_DATABASE_TIMEOUT_MS = 5_000;
/**
 * What `open` waits for each answer at least. Registering the key is on no request's path: a database slow at
 * start-up (many processes starting at once on a busy machine) is waited for rather than failing the process,
 * which a 1-second `databaseTimeoutMs` did once in the fault suite.
 */
const OPEN_TIMEOUT_MS = 15_000;

/**
 * How often, while acquires wait, the database is asked whether it still answers: a frozen server never ends
 * their waits by itself, and without a probe they would last their whole acquire timeout, then blame
 * saturation.
 */
const LIVENESS_PROBE_INTERVAL_MS = 1_000;

/**
 * Creates a cluster-wide FIFO semaphore on Postgres advisory locks: every process that uses the same database
 * and key shares `limit` slots, waiters are admitted in arrival order, and a dead process's permits come back
 * as soon as Postgres sees its connections close. Its one table, `limiter_key`, is created on first use where
 * Fusebox's migrations have not made it. Rejects with LimiterUnavailableError if the database does not answer, and with
 * LimiterSharedSessionError if `connect` cannot give independent sessions (PGlite).
 *
 * @example
 * const limiter = await createPgLimiter({ connectionString: process.env.DATABASE_URL!, key: 'run_code', limit: 10 });
 * const output = await limiter.withPermit((signal) => execute(code, { signal }), { timeoutMs: 60_000 });
 * await limiter.close();
 */
export async function createPgLimiter(options: PgLimiterOptions): Promise<Limiter> {
  const limiter = new PgLimiter(options);
  try {
    await limiter.open();
  } catch (error) {
    await limiter.close();
    throw error;
  }
  return limiter;
}

interface HeldPermit {
  session: PgSession;
  fence: AbortController;
}

class PgLimiter implements Limiter {
  readonly key: string;
  readonly #limit: number;
  readonly #rate: number | undefined;
  readonly #defaultTimeoutMs: number;
  readonly #maxWaiting: number;
  readonly #databaseTimeoutMs: number;
  readonly #holderName: string;
  readonly #connect: () => Promise<LimiterConnection>;
  /** This process's places in the database's queue. */
  readonly #tickets: FifoSemaphore;
  /** Sessions holding nothing, kept for the next acquire: a new connection costs milliseconds. */
  readonly #idle: PgSession[] = [];
  /** Every open session, so close() can end them all. */
  readonly #sessions = new Set<PgSession>();
  readonly #held = new Set<HeldPermit>();
  #namespace = 0;
  /** Reads stats and settings; never holds a permit. */
  #control: PgSession | undefined;
  /** The liveness probe in flight, shared by every waiting acquire. */
  #probing: Promise<void> | undefined;
  #closed = false;

  constructor(options: PgLimiterOptions) {
    this.key = checkKey(options.key);
    this.#limit = checkLimit(options.limit);
    this.#rate = checkRate(options.maxStartsPerSecond);
    this.#defaultTimeoutMs = checkTimeout('acquireTimeoutMs', options.acquireTimeoutMs, Infinity);
    this.#maxWaiting = checkPositiveInteger(
      'maxWaitingConnections',
      options.maxWaitingConnections,
      DEFAULT_MAX_WAITING_CONNECTIONS,
    );
    this.#databaseTimeoutMs = checkTimeout(
      'databaseTimeoutMs',
      options.databaseTimeoutMs,
      DEFAULT_DATABASE_TIMEOUT_MS,
    );
    this.#holderName = options.holderName ?? defaultHolderName();
    this.#connect = resolveConnect(options);
    this.#tickets = new FifoSemaphore(this.#maxWaiting);
  }

  /** Registers the key and checks that the connections are independent sessions. */
  async open(): Promise<void> {
    const timeoutMs = Math.max(this.#databaseTimeoutMs, OPEN_TIMEOUT_MS);
    const control = await this.#controlSession(timeoutMs);
    const register = () =>
      this.#run(() =>
        control.query<{ lock_namespace: number }>(
          { text: REGISTER_KEY_SQL },
          [this.key, lockNamespace(this.key), this.#limit, this.#rate ?? null],
          timeoutMs,
        ),
      );
    const rows = await register()
      .catch(async (error: unknown) => {
        if (sqlState(error) !== UNDEFINED_TABLE) throw error;
        await this.#run(() => control.query({ text: CREATE_KEY_TABLE_SQL }, [], timeoutMs));
        return register();
      })
      .catch((error: unknown) => {
        // Two processes registering one new key at once: ON CONFLICT (key) covers only that index, so the second
        // insert can fail on lock_namespace's instead. Once the first has committed, the retry updates its row;
        // if the namespace is another key's, it fails the same way and is a real collision (below).
        const cause = (error instanceof Error ? error.cause : undefined) as { constraint?: unknown };
        if (cause?.constraint !== 'limiter_key_lock_namespace_key') throw error;
        return register();
      })
      .catch((error: unknown) => {
        const cause = (error instanceof Error ? error.cause : undefined) as {
          code?: unknown;
          constraint?: unknown;
        };
        if (cause?.constraint === 'limiter_key_lock_namespace_key') {
          throw new LimiterKeyCollisionError(this.key, lockNamespace(this.key), { cause });
        }
        if (sqlState(error) === INSUFFICIENT_PRIVILEGE) {
          throw new LimiterUnavailableError(
            this.key,
            'it has no limiter_key table and this role may not create it: run the limiter once as a role that may, ' +
              "or apply Fusebox's migrations",
            { cause },
          );
        }
        throw error;
      });
    this.#namespace = rows[0]!.lock_namespace;

    // Advisory locks are re-entrant within a session: if a second connection can take a lock the first holds,
    // they are one session (PGlite), and every waiter would get every slot. The probe key is random, so
    // processes starting together do not see each other's probes.
    const other = await this.#openSession(timeoutMs);
    const probe = [randomBytes(8).readBigInt64BE().toString()];
    await this.#run(() => control.query({ text: PROBE_LOCK_SQL }, probe, timeoutMs));
    const shared = await this.#run(() =>
      other.query<{ locked: boolean }>({ text: PROBE_LOCK_SQL }, probe, timeoutMs),
    );
    await this.#run(() => control.query({ text: PROBE_UNLOCK_SQL }, probe, timeoutMs));
    if (shared[0]?.locked) throw new LimiterSharedSessionError(this.key);
    this.#idle.push(other);
  }

  async acquire(options: AcquireOptions = {}): Promise<Permit> {
    if (this.#closed) throw new LimiterClosedError(this.key);
    const deadline = startDeadline(this.key, options, this.#defaultTimeoutMs);
    const started = performance.now();
    try {
      await this.#tickets.take(deadline.signal);
      let session: PgSession;
      let slot: number;
      try {
        session = await this.#takeSession(deadline.signal);
        slot = await this.#wait(session, deadline);
      } finally {
        this.#tickets.give();
      }
      return this.#permit(session, slot, performance.now() - started);
    } catch (error) {
      if (this.#closed) throw new LimiterClosedError(this.key);
      throw error;
    } finally {
      deadline.dispose();
    }
  }

  withPermit<T>(
    fn: (signal: AbortSignal, permit: Permit) => T | Promise<T>,
    options?: AcquireOptions,
  ): Promise<T> {
    return withPermit(this, fn, options);
  }

  async stats(options: { signal?: AbortSignal } = {}): Promise<LimiterStats> {
    const control = await abortable(this.#controlSession(), options.signal);
    const [stats] = await abortable(
      this.#run(() => readStats(control, this.key, this.#databaseTimeoutMs)),
      options.signal,
    );
    if (!stats) throw new LimiterUnavailableError(this.key, 'the key is no longer registered in limiter_key');
    // Waiters beyond maxWaitingConnections queue in this process, where the database cannot see them.
    return { ...stats, waiting: stats.waiting + this.#tickets.waiting };
  }

  async setLimit(limit: number, options: { signal?: AbortSignal } = {}): Promise<void> {
    checkLimit(limit);
    const control = await abortable(this.#controlSession(), options.signal);
    const rows = await abortable(
      this.#run(() => control.query({ text: SET_LIMIT_SQL }, [this.key, limit], this.#databaseTimeoutMs)),
      options.signal,
    );
    if (rows.length === 0)
      throw new LimiterUnavailableError(this.key, 'the key is no longer registered in limiter_key');
  }

  async close(): Promise<void> {
    this.#closed = true;
    const reason = new LimiterClosedError(this.key);
    this.#tickets.rejectAll(reason);
    for (const held of this.#held) held.fence.abort(reason);
    this.#held.clear();
    this.#idle.length = 0;
    this.#control = undefined;
    await Promise.all([...this.#sessions].map((session) => session.end()));
    this.#sessions.clear();
  }

  /** Queues `session` in the database until it holds a slot; the timeout is the database's to enforce. */
  async #wait(session: PgSession, deadline: AcquireDeadline): Promise<number> {
    let grace: NodeJS.Timeout | undefined;
    /** Why the database counts as gone: it did not report a timeout, or did not answer a liveness probe. */
    let silent: Error | undefined;
    const giveUp = (reason: Error) => {
      silent ??= reason;
      void this.#drop(session);
    };
    const onAbort = () => {
      // A timeout is reported by the database, which leaves its queue cleanly and keeps the connection; only if
      // it does not answer, or the caller aborted, is the connection dropped (and its place with it).
      if (deadline.signal.reason instanceof LimiterTimeoutError) {
        const reason = new Error(`it did not report the acquire timeout within ${TIMEOUT_GRACE_MS} ms`);
        grace = setTimeout(() => giveUp(reason), TIMEOUT_GRACE_MS);
      } else {
        void this.#drop(session);
      }
    };
    deadline.signal.addEventListener('abort', onAbort, { once: true });
    const heartbeat = Number.isFinite(this.#databaseTimeoutMs)
      ? setInterval(() => void this.#probe().catch(giveUp), LIVENESS_PROBE_INTERVAL_MS)
      : undefined;
    let slot: number | null;
    try {
      const remaining = deadline.remainingMs();
      const rows = await session.query<{ slot: number | null }>(ACQUIRE_SQL, [
        this.key,
        this.#namespace,
        Number.isFinite(remaining) ? remaining : null,
      ]);
      slot = rows[0]?.slot ?? null;
    } catch (error) {
      void this.#drop(session);
      // A silent database is unavailable, not saturated: never a LimiterTimeoutError that would blame the load.
      if (silent) throw new LimiterUnavailableError(this.key, describe(silent), { cause: silent });
      if (deadline.signal.aborted) throw deadline.signal.reason;
      throw new LimiterUnavailableError(this.key, describe(error), { cause: error });
    } finally {
      deadline.signal.removeEventListener('abort', onAbort);
      clearTimeout(grace);
      clearInterval(heartbeat);
    }
    if (slot === null) {
      this.#recycle(session);
      throw new LimiterTimeoutError(this.key, deadline.timeoutMs);
    }
    if (
      !session.alive ||
      (deadline.signal.aborted && !(deadline.signal.reason instanceof LimiterTimeoutError))
    ) {
      void this.#drop(session);
      throw deadline.signal.aborted
        ? deadline.signal.reason
        : new LimiterUnavailableError(this.key, 'the connection died as the permit was granted');
    }
    return slot;
  }

  #permit(session: PgSession, slot: number, waitedMs: number): Permit {
    const held: HeldPermit = { session, fence: new AbortController() };
    this.#held.add(held);
    session.watch((cause) => held.fence.abort(new PermitLostError(this.key, slot, { cause })));
    let released: Promise<void> | undefined;
    return {
      key: this.key,
      slot,
      signal: held.fence.signal,
      acquiredAt: new Date(),
      waitedMs,
      release: () => (released ??= this.#release(held, slot)),
    };
  }

  async #release(held: HeldPermit, slot: number): Promise<void> {
    const { session } = held;
    session.unwatch();
    this.#held.delete(held);
    if (!session.alive) return;
    try {
      const rows = await session.query<{ released: boolean }>(
        RELEASE_SQL,
        [this.#namespace, slot],
        this.#databaseTimeoutMs,
      );
      if (rows[0]?.released) return this.#recycle(session);
    } catch {
      // Ending the session below frees the slot whatever went wrong.
    }
    // Not awaited: a frozen server reads the goodbye only once it thaws, and the slot stays taken until then.
    void this.#drop(session);
  }

  /** Asks the database whether it still answers, within databaseTimeoutMs; rejects if it does not. */
  #probe(): Promise<void> {
    this.#probing ??= (async () => {
      const control = await this.#controlSession();
      await control.query({ text: 'SELECT 1' }, [], this.#databaseTimeoutMs);
    })().finally(() => {
      this.#probing = undefined;
    });
    return this.#probing;
  }

  /** An idle session if one is still alive, else a new one. */
  async #takeSession(signal: AbortSignal): Promise<PgSession> {
    for (let session = this.#idle.pop(); session; session = this.#idle.pop()) {
      if (session.alive) return session;
      void this.#drop(session);
    }
    const opening = this.#openSession();
    try {
      return await abortable(opening, signal);
    } catch (error) {
      opening.then(
        (session) => this.#recycle(session),
        () => {},
      );
      throw error;
    }
  }

  #recycle(session: PgSession): void {
    if (this.#closed || !session.alive || this.#idle.length >= this.#maxWaiting) {
      void this.#drop(session);
    } else {
      this.#idle.push(session);
    }
  }

  async #drop(session: PgSession): Promise<void> {
    this.#sessions.delete(session);
    await session.end();
  }

  async #openSession(timeoutMs = this.#databaseTimeoutMs): Promise<PgSession> {
    const session = await PgSession.open(this.key, this.#connect, this.#holderName, timeoutMs);
    if (this.#closed) {
      await session.end();
      throw new LimiterClosedError(this.key);
    }
    this.#sessions.add(session);
    return session;
  }

  async #controlSession(timeoutMs = this.#databaseTimeoutMs): Promise<PgSession> {
    if (this.#closed) throw new LimiterClosedError(this.key);
    if (!this.#control?.alive) {
      if (this.#control) void this.#drop(this.#control);
      this.#control = await this.#openSession(timeoutMs);
    }
    return this.#control;
  }

  /** Runs a query on a session, turning a database failure into LimiterUnavailableError. */
  async #run<T>(query: () => Promise<T>): Promise<T> {
    try {
      return await query();
    } catch (error) {
      if (this.#closed) throw new LimiterClosedError(this.key);
      throw new LimiterUnavailableError(this.key, describe(error), { cause: error });
    }
  }
}
