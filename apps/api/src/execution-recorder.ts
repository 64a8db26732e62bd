import { randomBytes } from 'node:crypto';
import type { PrismaClient } from '@fusebox/db/client';
import { isDatabaseUnavailable } from '@fusebox/db/database-unavailable';
import { GroupCommit } from '@fusebox/db/group-commit';
import type { Prisma } from '@fusebox/db/prisma';

/** One row of the `execution` table, as `createMany` takes it. */
export type ExecutionRow = Prisma.ExecutionCreateManyInput;

/** Rows per INSERT at most: 24 columns × 500 stays far below Postgres's 65 535 parameters. */
const MAX_BATCH_ROWS = 500;

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
  requestId: ['request_id', () => null],
  toolInstance: ['tool_instance', () => null],
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

/**
 * Writes execution rows before their answers: `record` resolves once the row is committed, so an answered
 * execution is never missing from the table. Rows recorded while an INSERT is in flight share the next one (a
 * group commit, as plain SQL: Prisma's `createMany` costs ten times the CPU per row), so a busy server pays one
 * round trip for many answers, and an idle one pays no timer. A row the database refuses fails only its own
 * `record`; a database that cannot be reached fails every waiting row, and the routes answer 503.
 */
export class ExecutionRecorder {
  readonly #prisma: PrismaClient;
  readonly #inserts: GroupCommit<ExecutionRow, void>;

  constructor(prisma: PrismaClient) {
    this.#prisma = prisma;
    this.#inserts = new GroupCommit((rows) => this.#insert(rows), {
      maxBatch: MAX_BATCH_ROWS,
      failsEveryItem: isDatabaseUnavailable,
    });
  }

  /** Writes `row`; resolves once it is committed, rejects with the database's error if it cannot be. */
  record(row: ExecutionRow): Promise<void> {
    return this.#inserts.submit(row);
  }

  /** Resolves once every row recorded so far is written or has failed. */
  settled(): Promise<void> {
    return this.#inserts.settled();
  }

  async #insert(rows: ExecutionRow[]): Promise<void[]> {
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
    return rows.map(() => undefined);
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
