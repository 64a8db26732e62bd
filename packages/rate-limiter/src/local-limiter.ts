import { setTimeout as sleep } from 'node:timers/promises';
import { LimiterClosedError } from './errors/limiter-closed-error';
import { type AcquireDeadline, startDeadline } from './acquire-deadline';
import { FifoSemaphore } from './fifo-semaphore';
import type { AcquireOptions, Holder, Limiter, LimiterStats, Permit } from './limiter';
import { checkKey, checkLimit, checkRate, checkTimeout } from './options';
import { defaultHolderName } from './holder-name';
import { withPermit } from './with-permit';

/** Options of `createLocalLimiter`. */
export interface LocalLimiterOptions {
  /** At most this many permits in flight in this process. */
  limit: number;
  /** A name for stats and errors. Default `'local'`. */
  key?: string;
  /** Default `timeoutMs` of acquires; Infinity (the default) waits for ever. */
  acquireTimeoutMs?: number;
  /** Also space starts at least 1/maxStartsPerSecond apart (a token bucket of one token). Unset: no cap. */
  maxStartsPerSecond?: number;
  /** How stats name the holders. Default `host:pid`. */
  holderName?: string;
}

/**
 * Creates an in-process FIFO semaphore with the same `Limiter` interface as `createPgLimiter`, for a single
 * process (embedded mode, tests, or a per-process bound under the cluster one). Its permits are lost only when
 * it is closed.
 *
 * @example
 * const limiter = createLocalLimiter({ limit: 4 });
 * const results = await Promise.all(jobs.map((job) => limiter.withPermit(() => job())));
 */
export function createLocalLimiter(options: LocalLimiterOptions): Limiter {
  return new LocalLimiter(options);
}

interface LocalHold {
  holder: Holder;
  fence: AbortController;
}

class LocalLimiter implements Limiter {
  readonly key: string;
  readonly #slots: FifoSemaphore;
  readonly #rate: number | undefined;
  readonly #defaultTimeoutMs: number;
  readonly #holderName: string;
  readonly #held = new Map<number, LocalHold>();
  /** Granted a slot, waiting for its start time under `maxStartsPerSecond`. */
  #pacing = 0;
  /** performance.now() before which no permit may start. */
  #nextStart = 0;
  #closed = false;

  constructor(options: LocalLimiterOptions) {
    this.key = checkKey(options.key ?? 'local');
    this.#slots = new FifoSemaphore(checkLimit(options.limit));
    this.#rate = checkRate(options.maxStartsPerSecond);
    this.#defaultTimeoutMs = checkTimeout('acquireTimeoutMs', options.acquireTimeoutMs, Infinity);
    this.#holderName = options.holderName ?? defaultHolderName();
  }

  async acquire(options: AcquireOptions = {}): Promise<Permit> {
    if (this.#closed) throw new LimiterClosedError(this.key);
    const deadline = startDeadline(this.key, options, this.#defaultTimeoutMs);
    const started = performance.now();
    try {
      await this.#slots.take(deadline.signal);
      try {
        await this.#pace(deadline);
      } catch (error) {
        this.#slots.give();
        throw error;
      }
      return this.#permit(performance.now() - started);
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

  // The rest of the interface is asynchronous because the Postgres limiter's is; here it settles at once, and
  // bad input rejects rather than throws, as there.
  stats(options: { signal?: AbortSignal } = {}): Promise<LimiterStats> {
    return settle(() => {
      options.signal?.throwIfAborted();
      const holders = [...this.#held.values()].map((hold) => ({ ...hold.holder }));
      return {
        key: this.key,
        limit: this.#slots.limit,
        inFlight: holders.length,
        waiting: this.#slots.waiting + this.#pacing,
        holders: holders.sort((a, b) => a.slot - b.slot),
      };
    });
  }

  setLimit(limit: number, options: { signal?: AbortSignal } = {}): Promise<void> {
    return settle(() => {
      options.signal?.throwIfAborted();
      this.#slots.setLimit(checkLimit(limit));
    });
  }

  close(): Promise<void> {
    return settle(() => {
      this.#closed = true;
      const reason = new LimiterClosedError(this.key);
      this.#slots.rejectAll(reason);
      for (const hold of this.#held.values()) hold.fence.abort(reason);
    });
  }

  /** Waits, in grant order, for this start's turn under the start-rate cap. */
  async #pace(deadline: AcquireDeadline): Promise<void> {
    if (this.#rate === undefined) return;
    const start = Math.max(performance.now(), this.#nextStart);
    this.#nextStart = start + 1_000 / this.#rate;
    const delay = start - performance.now();
    if (delay <= 0) return;
    this.#pacing += 1;
    try {
      await sleep(delay, undefined, { signal: deadline.signal }).catch(() =>
        deadline.signal.throwIfAborted(),
      );
    } finally {
      this.#pacing -= 1;
    }
  }

  #permit(waitedMs: number): Permit {
    let slot = 1;
    while (this.#held.has(slot)) slot += 1;
    const since = new Date();
    const hold: LocalHold = {
      holder: { slot, holder: this.#holderName, since, pid: null },
      fence: new AbortController(),
    };
    this.#held.set(slot, hold);
    let released = false;
    return {
      key: this.key,
      slot,
      signal: hold.fence.signal,
      acquiredAt: since,
      waitedMs,
      release: () => {
        if (!released && !this.#closed) {
          this.#held.delete(slot);
          this.#slots.give();
        }
        released = true;
        return Promise.resolve();
      },
    };
  }
}

/** `fn`'s result as a promise, or its exception as a rejection. */
function settle<T>(fn: () => T): Promise<T> {
  return new Promise((resolve) => resolve(fn()));
}
