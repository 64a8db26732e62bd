/** Items written per call of `write` at most. */
const MAX_BATCH = 1000;

/**
 * Group commit: items submitted while a write is in flight (or in the same tick) are written together by the
 * next call of `write`, which resolves to one result per item, in order. A burst of N requests thus costs a few
 * round trips instead of N, and never waits on the database pool. If `write` rejects, every item of that batch
 * rejects with its error.
 *
 * @example
 * const inserts = new Batcher((rows: Row[]) => insertAll(rows));
 * await inserts.submit(row);
 */
export class Batcher<I, O> {
  readonly #write: (items: I[]) => Promise<O[]>;
  #queue: { item: I; resolve: (value: O) => void; reject: (error: unknown) => void }[] = [];
  #flushing: Promise<void> | undefined;

  constructor(write: (items: I[]) => Promise<O[]>) {
    this.#write = write;
  }

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      if (this.#flushing === undefined) {
        this.#flushing = new Promise<void>((next) => setImmediate(next)).then(() => this.#drain());
      }
    });
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, MAX_BATCH);
      try {
        const results = await this.#write(batch.map(({ item }) => item));
        batch.forEach(({ resolve }, index) => resolve(results[index] as O));
      } catch (error) {
        for (const { reject } of batch) reject(error);
      }
    }
    this.#flushing = undefined;
  }
}
