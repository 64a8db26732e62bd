/** What `acquire` and `withPermit` accept. */
export interface AcquireOptions {
  /** Aborting it withdraws the waiter from the queue; the acquire rejects with `signal.reason`. */
  signal?: AbortSignal;
  /**
   * Give up after this long in the queue, rejecting with LimiterTimeoutError. Defaults to the limiter's
   * `acquireTimeoutMs`, which defaults to waiting for ever.
   */
  timeoutMs?: number;
}

/** One slot of a limiter, held until `release()`. */
export interface Permit {
  readonly key: string;
  /** Which slot, 1..limit: unique among the permits held at one moment. */
  readonly slot: number;
  /**
   * Aborts if the permit is lost before it is released (its database connection died, or the limiter was
   * closed), with a PermitLostError or LimiterClosedError as reason. Work under the permit must stop then:
   * the slot already belongs to someone else.
   */
  readonly signal: AbortSignal;
  readonly acquiredAt: Date;
  /** How long the acquire waited in the queue, in milliseconds. */
  readonly waitedMs: number;
  /** Frees the slot. Idempotent, and never rejects: a permit that cannot be released cleanly is dropped. */
  release(): Promise<void>;
}

/** Who holds a slot, as a dashboard shows it. */
export interface Holder {
  slot: number;
  /** The holder's name: by default `host:pid` of the process that holds it. */
  holder: string;
  /** When the permit was granted (for Postgres, when the holder's session last went idle). */
  since: Date | null;
  /** The holder's Postgres backend pid; null for in-process limiters. */
  pid: number | null;
}

/** A limiter key's state at one moment; for a Postgres limiter, that of the whole cluster. */
export interface LimiterStats {
  key: string;
  limit: number;
  /** Permits held now. It can exceed `limit` for a while after the limit was lowered. */
  inFlight: number;
  /**
   * Acquires queued now. For Postgres: every process's acquires queued in the database, plus, from `stats()`,
   * this process's own beyond `maxWaitingConnections`, which wait for a connection in the process.
   */
  waiting: number;
  holders: Holder[];
}

/**
 * A counting semaphore that admits waiters in arrival order. `createPgLimiter` shares one across every process
 * using the same database and key; `createLocalLimiter` is the in-process one.
 *
 * @example
 * const result = await limiter.withPermit((signal) => runCode(request, { signal }), { timeoutMs: 30_000 });
 */
export interface Limiter {
  readonly key: string;
  /** Waits for a free slot, in FIFO order. */
  acquire(options?: AcquireOptions): Promise<Permit>;
  /**
   * Runs `fn` under a permit and always releases it. `fn` gets the permit's signal (and the permit, for its
   * timing). If the permit is lost before `fn` settles, the call rejects with the loss reason, even if `fn`
   * resolved: its work ran unguarded.
   */
  withPermit<T>(
    fn: (signal: AbortSignal, permit: Permit) => T | Promise<T>,
    options?: AcquireOptions,
  ): Promise<T>;
  /** The key's current state; for Postgres read from `pg_locks`, so it costs a query: poll at most once a second. */
  stats(options?: { signal?: AbortSignal }): Promise<LimiterStats>;
  /**
   * Changes the limit for this key (for Postgres, cluster-wide and at once). Lowering it preempts nobody:
   * holders over the new limit keep their permits until they release, and no new permit is granted until the
   * number in flight is below the new limit.
   */
  setLimit(limit: number, options?: { signal?: AbortSignal }): Promise<void>;
  /**
   * Rejects queued acquires with LimiterClosedError and frees every resource. Permits still held are fenced
   * (their signal aborts with LimiterClosedError), so finish or abandon the work under them first.
   */
  close(): Promise<void>;
}
