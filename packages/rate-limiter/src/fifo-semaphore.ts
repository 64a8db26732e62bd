interface Waiter {
  resolve(): void;
  reject(reason: unknown): void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

/**
 * An in-process counting semaphore that grants in arrival order. The local limiter is one; the Postgres limiter
 * uses one to bound how many of its waiters hold a database connection at once.
 */
export class FifoSemaphore {
  #limit: number;
  #inUse = 0;
  readonly #queue: Waiter[] = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  get limit(): number {
    return this.#limit;
  }

  get inUse(): number {
    return this.#inUse;
  }

  get waiting(): number {
    return this.#queue.length;
  }

  /** Resolves when a unit is granted; rejects with `signal.reason` if the signal aborts first. */
  take(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.#queue.length === 0 && this.#inUse < this.#limit) {
      this.#inUse += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          this.#queue.splice(this.#queue.indexOf(waiter), 1);
          reject(signal?.reason as Error);
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.#queue.push(waiter);
    });
  }

  /** Returns a unit; the longest waiter gets it if the limit allows. */
  give(): void {
    this.#inUse -= 1;
    this.#admit();
  }

  /** A lower limit preempts nobody: units in use stay in use, and new grants wait until below the limit. */
  setLimit(limit: number): void {
    this.#limit = limit;
    this.#admit();
  }

  /** Rejects every queued waiter with `reason`. */
  rejectAll(reason: unknown): void {
    for (const waiter of this.#queue.splice(0)) {
      waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.reject(reason);
    }
  }

  #admit(): void {
    while (this.#inUse < this.#limit) {
      const next = this.#queue.shift();
      if (!next) return;
      next.signal?.removeEventListener('abort', next.onAbort);
      this.#inUse += 1;
      next.resolve();
    }
  }
}
