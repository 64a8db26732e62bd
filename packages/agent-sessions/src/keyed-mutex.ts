/**
 * One queue per key: `run(key, fn)` waits for the calls on the same key before it, in arrival order, so a
 * session's actions, reward and postprocess never overlap and its actions are numbered in arrival order.
 * Keys with nothing queued take no memory.
 */
export class KeyedMutex {
  readonly #tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const current = previous.then(fn);
    const tail = current.catch(() => {});
    this.#tails.set(key, tail);
    try {
      return await current;
    } finally {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }

  /** Whether a call on this key is running or queued. */
  busy(key: string): boolean {
    return this.#tails.has(key);
  }

  /** Keys with a call running or queued. */
  keys(): string[] {
    return [...this.#tails.keys()];
  }
}
