import { ExecutorClosedError } from './errors/executor-closed-error';
import { QueueFullError } from './errors/queue-full-error';

/** Gives the slot back; calling it twice is harmless. */
export type Release = () => void;

interface Waiter {
  grant: (release: Release) => void;
  fail: (error: Error) => void;
}

/** How much a new hold time moves the running average used for Retry-After. */
const HOLD_AVERAGE_WEIGHT = 0.2;
/** While the budget alone holds waiters back, how often it is asked again (memory also frees between releases). */
const BUDGET_RECHECK_MS = 100;

/** Decides whether one more holder fits beside `running` ones: undefined if so, else what is short. */
export interface AdmissionBudget {
  shortfall(running: number): string | undefined;
}

/** What a gate admits by, beyond its count of slots. */
export interface FifoGateOptions {
  /** Asked before each admission; a holder waits while it says something is short. */
  budget?: AdmissionBudget;
  /** Longest a caller waits before {@link QueueFullError} saying how long it waited and why; 0 for no bound. */
  queueTimeoutMs?: number;
}

/**
 * A counting semaphore whose waiters are served strictly first come, first served, with a bounded queue: when
 * `queueLimit` callers already wait, `acquire` fails at once with {@link QueueFullError} instead of letting the
 * backlog turn into timeouts. With a `budget`, a slot is granted only while the budget has room too (the count is
 * then a ceiling), and with `queueTimeoutMs` no caller waits longer than that.
 */
export class FifoGate {
  readonly concurrency: number;
  readonly queueLimit: number;
  readonly #budget: AdmissionBudget | undefined;
  readonly #queueTimeoutMs: number;
  #running = 0;
  #closed = false;
  readonly #waiters: Waiter[] = [];
  #averageHoldMs = 1_000;
  #recheck: NodeJS.Timeout | undefined;

  constructor(concurrency: number, queueLimit: number, options: FifoGateOptions = {}) {
    this.concurrency = concurrency;
    this.queueLimit = queueLimit;
    this.#budget = options.budget;
    this.#queueTimeoutMs = options.queueTimeoutMs ?? 0;
  }

  /** Slots in use now. */
  get running(): number {
    return this.#running;
  }

  /** Callers waiting for a slot now. */
  get waiting(): number {
    return this.#waiters.length;
  }

  /** Waits for a slot; rejects with `signal.reason` if aborted while waiting. */
  acquire({ signal }: { signal?: AbortSignal } = {}): Promise<Release> {
    if (this.#closed) return Promise.reject(new ExecutorClosedError());
    signal?.throwIfAborted();
    if (this.#waiters.length === 0 && this.#shortfall() === undefined) {
      this.#running += 1;
      return Promise.resolve(this.#release());
    }
    if (this.#waiters.length >= this.queueLimit) {
      return Promise.reject(
        new QueueFullError(
          `the executor is saturated: ${this.#shortfall() ?? 'every slot is busy'}, and ${this.queueLimit} executions are already waiting`,
          this.#retryAfterSeconds(),
        ),
      );
    }
    const asked = performance.now();
    return new Promise<Release>((resolve, reject) => {
      const leave = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const index = this.#waiters.indexOf(waiter);
        if (index >= 0) this.#waiters.splice(index, 1);
      };
      const onAbort = () => {
        leave();
        reject(signal?.reason as Error);
      };
      const onTimeout = () => {
        const why = this.#shortfall() ?? 'every slot is busy';
        leave();
        const waitedS = ((performance.now() - asked) / 1000).toFixed(1);
        reject(
          new QueueFullError(
            `the executor is saturated: waited ${waitedS} s for room to run (${why}); nothing ran, and the run's own timeouts had not started`,
            this.#retryAfterSeconds(),
          ),
        );
      };
      const timer = this.#queueTimeoutMs > 0 ? setTimeout(onTimeout, this.#queueTimeoutMs) : undefined;
      const waiter: Waiter = {
        grant: (release) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
        fail: (error) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
      this.#drain();
    });
  }

  /** Rejects every waiter with {@link ExecutorClosedError}; slots already held stay valid until released. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#recheck);
    for (const waiter of this.#waiters.splice(0)) waiter.fail(new ExecutorClosedError());
  }

  #release(): Release {
    const heldSince = performance.now();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const heldMs = performance.now() - heldSince;
      this.#averageHoldMs += HOLD_AVERAGE_WEIGHT * (heldMs - this.#averageHoldMs);
      this.#running -= 1;
      this.#drain();
    };
  }

  /** What keeps one more holder out now: the count of slots, or the budget's answer; undefined if nothing. */
  #shortfall(): string | undefined {
    if (this.#running >= this.concurrency) return `all ${this.concurrency} slots are busy`;
    return this.#budget?.shortfall(this.#running);
  }

  /** Admits waiters, first come first served, while there is room; asks the budget again later if it said no. */
  #drain(): void {
    while (this.#waiters.length > 0 && this.#shortfall() === undefined) {
      this.#running += 1;
      this.#waiters.shift()!.grant(this.#release());
    }
    if (this.#waiters.length > 0 && this.#running < this.concurrency && this.#recheck === undefined) {
      this.#recheck = setTimeout(() => {
        this.#recheck = undefined;
        if (!this.#closed) this.#drain();
      }, BUDGET_RECHECK_MS);
      this.#recheck.unref();
    }
  }

  /** Roughly when a slot for a new caller would free up, from the average hold time; at least one second. */
  #retryAfterSeconds(): number {
    const queuedRounds = (this.#waiters.length + 1) / Math.max(1, Math.min(this.concurrency, this.#running));
    return Math.min(60, Math.max(1, Math.ceil((queuedRounds * this.#averageHoldMs) / 1000)));
  }
}
