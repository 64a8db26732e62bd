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

/**
 * A counting semaphore whose waiters are served strictly first come, first served, with a bounded queue: when
 * `queueLimit` callers already wait, `acquire` fails at once with {@link QueueFullError} instead of letting the
 * backlog turn into timeouts.
 */
export class FifoGate {
  readonly concurrency: number;
  readonly queueLimit: number;
  #running = 0;
  #closed = false;
  readonly #waiters: Waiter[] = [];
  #averageHoldMs = 1_000;

  constructor(concurrency: number, queueLimit: number) {
    this.concurrency = concurrency;
    this.queueLimit = queueLimit;
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
    if (this.#running < this.concurrency && this.#waiters.length === 0) {
      this.#running += 1;
      return Promise.resolve(this.#release());
    }
    if (this.#waiters.length >= this.queueLimit) {
      return Promise.reject(new QueueFullError(this.queueLimit, this.#retryAfterSeconds()));
    }
    return new Promise<Release>((resolve, reject) => {
      const onAbort = () => {
        const index = this.#waiters.indexOf(waiter);
        if (index >= 0) this.#waiters.splice(index, 1);
        reject(signal?.reason as Error);
      };
      const waiter: Waiter = {
        grant: (release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
        fail: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  /** Rejects every waiter with {@link ExecutorClosedError}; slots already held stay valid until released. */
  close(): void {
    this.#closed = true;
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
      const next = this.#waiters.shift();
      if (next) next.grant(this.#release());
      else this.#running -= 1;
    };
  }

  /** Roughly when a slot for a new caller would free up, from the average hold time; at least one second. */
  #retryAfterSeconds(): number {
    const queuedRounds = (this.#waiters.length + 1) / this.concurrency;
    return Math.min(60, Math.max(1, Math.ceil((queuedRounds * this.#averageHoldMs) / 1000)));
  }
}
