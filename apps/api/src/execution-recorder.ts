import { randomBytes } from 'node:crypto';
import type { PrismaClient } from '@fusebox/db/client';
import type { Prisma } from '@fusebox/db/prisma';

/** One row of the `execution` table, as `createMany` takes it. */
export type ExecutionRow = Prisma.ExecutionCreateManyInput;

/** Rows waiting to be written; past this, the oldest are dropped (and counted) rather than growing without bound. */
const MAX_BUFFERED_ROWS = 10_000;
/** Rows per INSERT: a full batch is written at once; 22 columns × 500 stays far below Postgres's 65 535 parameters. */
const MAX_BATCH_ROWS = 500;
/**
 * How long a row may wait for others to share its INSERT. One INSERT costs this process milliseconds of CPU
 * whatever its size (measured: ~5 ms for 1 row, ~6 ms for 100), CPU the executions need on a small machine.
 */
const FLUSH_DELAY_MS = 100;

/**
 * Each field of a row, its column, and the value written when the row leaves it out (the column's default).
 * Typed against Prisma's row type, so a schema change that adds or removes a field fails to compile here.
 */
const COLUMNS: { [K in keyof Required<ExecutionRow>]: [column: string, fallback: () => unknown] } = {
  id: ['id', uuidv7],
  source: ['source', () => null],
  language: ['language', () => null],
  code: ['code', () => null],
  stdin: ['stdin', () => null],
  status: ['status', () => null],
  message: ['message', () => ''],
  compileStatus: ['compile_status', () => null],
  runStatus: ['run_status', () => null],
  returnCode: ['return_code', () => null],
  stdout: ['stdout', () => ''],
  stderr: ['stderr', () => ''],
  outputTruncated: ['output_truncated', () => false],
  limiterKey: ['limiter_key', () => null],
  requestedAt: ['requested_at', () => new Date()],
  acquiredAt: ['acquired_at', () => null],
  finishedAt: ['finished_at', () => null],
  queueWaitMs: ['queue_wait_ms', () => 0],
  compileMs: ['compile_ms', () => null],
  runMs: ['run_ms', () => null],
  workerId: ['worker_id', () => null],
  sessionId: ['session_id', () => null],
};
const FIELDS = Object.keys(COLUMNS) as (keyof ExecutionRow)[];
const COLUMN_LIST = FIELDS.map((field) => `"${COLUMNS[field][0]}"`).join(', ');

/**
 * A row keyed by column name, every column present and left-out ones at their defaults: what SQL that takes
 * rows as JSON (`json_populate_recordset(NULL::execution, …)`, which reads a missing key as NULL) needs.
 */
export function executionColumns(row: ExecutionRow): Record<string, unknown> {
  return Object.fromEntries(FIELDS.map((field) => [COLUMNS[field][0], row[field] ?? COLUMNS[field][1]()]));
}

export interface RecorderStats {
  recorded: number;
  written: number;
  dropped: number;
  failedBatches: number;
  /** Time spent in INSERTs, all batches together. */
  writeMs: number;
}

/**
 * Writes execution rows off the response path: `record` only queues the row (microseconds). Rows are written
 * together, one multi-row INSERT per {@link FLUSH_DELAY_MS} (or per full batch), as plain SQL: Prisma's
 * `createMany` costs ten times the CPU per row. A failed INSERT is logged and its rows dropped: recording must
 * never fail or slow an execution.
 */
export class ExecutionRecorder {
  readonly #prisma: PrismaClient;
  readonly #onError: (error: unknown, rows: number) => void;
  #queue: ExecutionRow[] = [];
  #timer: NodeJS.Timeout | undefined;
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
    if (this.#writing) return;
    if (this.#queue.length >= MAX_BATCH_ROWS) this.#write();
    else this.#timer ??= setTimeout(() => this.#write(), FLUSH_DELAY_MS);
  }

  stats(): RecorderStats {
    return { ...this.#stats };
  }

  /** Writes every row recorded so far now, and waits until they are written (or dropped after a failure). */
  async flush(): Promise<void> {
    if (this.#queue.length > 0 && !this.#writing) this.#write();
    while (this.#writing) await this.#writing;
  }

  #write(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#writing = this.#drain().finally(() => {
      this.#writing = undefined;
      if (this.#queue.length > 0) this.#timer ??= setTimeout(() => this.#write(), FLUSH_DELAY_MS);
    });
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, MAX_BATCH_ROWS);
      const started = performance.now();
      try {
        await this.#insert(batch);
        this.#stats.written += batch.length;
      } catch (error) {
        this.#stats.failedBatches += 1;
        this.#stats.dropped += batch.length;
        this.#onError(error, batch.length);
      }
      this.#stats.writeMs += performance.now() - started;
    }
  }

  async #insert(rows: ExecutionRow[]): Promise<void> {
    const values: unknown[] = [];
    const tuples = rows.map((row) => {
      const placeholders = FIELDS.map((field) => {
        values.push(row[field] ?? COLUMNS[field][1]());
        return `$${values.length}`;
      });
      return `(${placeholders.join(', ')})`;
    });
    await this.#prisma.$executeRawUnsafe(
      `INSERT INTO "execution" (${COLUMN_LIST}) VALUES ${tuples.join(', ')}`,
      ...values,
    );
  }
}

/** A time-ordered UUID (version 7), as Prisma's `@default(uuid(7))` makes for rows it creates itself. */
function uuidv7(): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(Date.now(), 0, 6);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
