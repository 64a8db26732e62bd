/** Items written per call of `write` at most. */
const DEFAULT_MAX_BATCH = 500;

export interface GroupCommitOptions {
  /** Items per call of `write` at most (default 500). */
  maxBatch?: number;
  /**
   * True for an error that no item caused (the database is down, frozen or shutting down): the whole batch fails
   * with it, and nothing is written again item by item, which would only wait that many more times.
   */
  failsEveryItem?: (error: unknown) => boolean;
}

/**
 * Group commit: items submitted while a write is in flight (or in the same tick) are written together by the
 * next call of `write`, which resolves to one result per item, in order. A burst of N callers thus costs a few
 * round trips instead of N, and each caller learns only once its own item is committed. If a batch's write
 * fails for a reason an item may have caused (a constraint, a bad value), its items are written again one by
 * one, so one bad item fails only its own caller, never the others it happened to share a statement with.
 *
 * @example
 * const inserts = new GroupCommit((rows: Row[]) => insertAll(rows));
 * await inserts.submit(row); // committed once this resolves
 */
export class GroupCommit<I, O> {
  readonly #write: (items: I[]) => Promise<O[]>;
  readonly #maxBatch: number;
  readonly #failsEveryItem: (error: unknown) => boolean;
  #queue: { item: I; resolve: (value: O) => void; reject: (error: unknown) => void }[] = [];
  #flushing: Promise<void> | undefined;

  constructor(write: (items: I[]) => Promise<O[]>, options: GroupCommitOptions = {}) {
    const maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
    if (!Number.isSafeInteger(maxBatch) || maxBatch <= 0) {
      throw new TypeError(`expected maxBatch to be a positive integer, got ${String(maxBatch)}`);
    }
    this.#write = write;
    this.#maxBatch = maxBatch;
    this.#failsEveryItem = options.failsEveryItem ?? (() => false);
  }

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      this.#flushing ??= new Promise<void>((next) => setImmediate(next)).then(() => this.#drain());
    });
  }

  /** Resolves once every item submitted so far is written or has failed. */
  async settled(): Promise<void> {
    while (this.#flushing) await this.#flushing;
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#maxBatch);
      try {
        const results = await this.#write(batch.map(({ item }) => item));
        batch.forEach(({ resolve }, index) => resolve(results[index] as O));
      } catch (error) {
        if (batch.length === 1 || this.#failsEveryItem(error)) {
          for (const { reject } of batch) reject(error);
          continue;
        }
        for (const { item, resolve, reject } of batch) {
          await this.#write([item]).then((results) => resolve(results[0] as O), reject);
        }
      }
    }
    this.#flushing = undefined;
  }
}
