/** After a failed start, wait this long before starting another: a broken setup must not spin. */
const RETRY_AFTER_FAILURE_MS = 1_000;

/**
 * What a pool of pre-started processes does off the request's path: starts and disposals that `close()` waits
 * for, and a pause after a failed start (meanwhile requests take a slower path), after which `restart` runs.
 */
export class BackgroundStarts {
  readonly #pending = new Set<Promise<unknown>>();
  readonly #onError: (error: unknown) => void;
  readonly #restart: () => void;
  #pausedUntil = 0;

  constructor(onError: (error: unknown) => void, restart: () => void) {
    this.#onError = onError;
    this.#restart = restart;
  }

  /** Whether a start failed lately: nothing should start until the pause is over. */
  get paused(): boolean {
    return Date.now() < this.#pausedUntil;
  }

  /** Runs `work` in the background: its error is reported, and {@link settled} waits for it. */
  track(work: Promise<unknown>): void {
    const tracked = work.catch(this.#onError);
    this.#pending.add(tracked);
    void tracked.finally(() => this.#pending.delete(tracked));
  }

  /** A start failed: reports `error`, and calls `restart` once the pause is over. */
  failed(error: unknown): void {
    this.#pausedUntil = Date.now() + RETRY_AFTER_FAILURE_MS;
    this.#onError(error);
    setTimeout(this.#restart, RETRY_AFTER_FAILURE_MS).unref();
  }

  /** Resolves once all tracked work has settled, including work tracked meanwhile. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }
}
