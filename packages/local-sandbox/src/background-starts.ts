/** The pause after a first failed start; each failure in a row doubles it, up to {@link MAX_PAUSE_MS}. */
const FIRST_PAUSE_MS = 1_000;
/** A setup that stays broken (bubblewrap gone, say) is retried, and reported, once a minute. */
const MAX_PAUSE_MS = 60_000;

/**
 * What a pool of pre-started processes does off the request's path: starts and disposals that `close()` waits
 * for, and a pause after a failed start (meanwhile requests take a slower path), after which `restart` runs.
 */
export class BackgroundStarts {
  readonly #pending = new Set<Promise<unknown>>();
  readonly #onError: (error: unknown) => void;
  readonly #restart: () => void;
  #pausedUntil = 0;
  #failuresInARow = 0;
  #retry: NodeJS.Timeout | undefined;

  constructor(onError: (error: unknown) => void, restart: () => void) {
    this.#onError = onError;
    this.#restart = restart;
  }

  /** Whether a start failed lately: nothing should start until the pause is over. */
  get paused(): boolean {
    return performance.now() < this.#pausedUntil;
  }

  /** Runs `work` in the background: its error is reported, and {@link settled} waits for it. */
  track(work: Promise<unknown>): void {
    const tracked = work.catch(this.#onError);
    this.#pending.add(tracked);
    void tracked.finally(() => this.#pending.delete(tracked));
  }

  /** A start succeeded: the next failure pauses for the shortest time again. */
  started(): void {
    this.#failuresInARow = 0;
  }

  /** A start failed: reports `error`, and calls `restart` once the pause is over. */
  failed(error: unknown): void {
    const pause = Math.min(FIRST_PAUSE_MS * 2 ** this.#failuresInARow, MAX_PAUSE_MS);
    this.#failuresInARow += 1;
    this.#pausedUntil = performance.now() + pause;
    this.#onError(error);
    // One retry, after the latest (longest) pause; it ends the pause itself, as a timer may fire a little early.
    clearTimeout(this.#retry);
    this.#retry = setTimeout(() => {
      this.#pausedUntil = 0;
      this.#restart();
    }, pause).unref();
  }

  /** Resolves once all tracked work has settled, including work tracked meanwhile. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }
}
