import type { PrismaClient } from '@fusebox/db/client';
import type { Prisma } from '@fusebox/db/prisma';

/** One row of the `execution` table, as `createMany` takes it. */
export type ExecutionRow = Prisma.ExecutionCreateManyInput;

/** Rows waiting to be written; past this, the oldest are dropped (and counted) rather than growing without bound. */
const MAX_BUFFERED_ROWS = 10_000;
/** Rows per INSERT, so one statement stays well under Postgres's parameter limit. */
const MAX_BATCH_ROWS = 500;

export interface RecorderStats {
  recorded: number;
  written: number;
  dropped: number;
  failedBatches: number;
  /** Time spent in INSERTs, all batches together. */
  writeMs: number;
}

/**
 * Writes execution rows off the response path: `record` only queues the row (microseconds); the queue is
 * written with one multi-row INSERT as soon as the event loop is free, and again whenever more rows arrived
 * meanwhile. A failed INSERT is logged and its rows dropped: recording must never fail or slow an execution.
 */
export class ExecutionRecorder {
  readonly #prisma: PrismaClient;
  readonly #onError: (error: unknown, rows: number) => void;
  #queue: ExecutionRow[] = [];
  #writing: Promise<void> | undefined;
  readonly #stats: RecorderStats = { recorded: 0, written: 0, dropped: 0, failedBatches: 0, writeMs: 0 };

  constructor(prisma: PrismaClient, onError: (error: unknown, rows: number) => void) {
    this.#prisma = prisma;
    this.#onError = onError;
  }

  record(row: ExecutionRow): void {
    this.#stats.recorded += 1;
    this.#queue.push(row);
    if (this.#queue.length > MAX_BUFFERED_ROWS) this.#stats.dropped += this.#queue.splice(0, 1).length;
    this.#writing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.#drain());
  }

  stats(): RecorderStats {
    return { ...this.#stats };
  }

  /** Waits until every row recorded so far is written (or dropped after a failure). */
  async flush(): Promise<void> {
    while (this.#writing) await this.#writing;
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, MAX_BATCH_ROWS);
      const started = performance.now();
      try {
        await this.#prisma.execution.createMany({ data: batch });
        this.#stats.written += batch.length;
      } catch (error) {
        this.#stats.failedBatches += 1;
        this.#stats.dropped += batch.length;
        this.#onError(error, batch.length);
      }
      this.#stats.writeMs += performance.now() - started;
    }
    this.#writing = undefined;
  }
}
