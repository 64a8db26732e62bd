import type { SqlTransaction } from '@fusebox/db/sql-client';
import { storableJson } from '@fusebox/db/storable';
import type { SampleRow } from './dump-line';
import { uuidV7 } from './uuid-v7';

const COLUMNS = [
  'id',
  'run_id',
  'step',
  'line',
  'request_id',
  'input',
  'output',
  'gts',
  'score',
  'extras',
  'prompt_hash',
  'response_chars',
  'tool_calls',
  'tool_errors',
  'turns',
] as const;

const COPY_TARGET = `"rollout_sample" (${COLUMNS.map((column) => `"${column}"`).join(', ')})`;

/** A CSV field: quoted, with quotes doubled. An empty unquoted field is NULL in Postgres's CSV format. */
function field(value: string): string {
  return `"${value.includes('"') ? value.replaceAll('"', '""') : value}"`;
}

function json(value: unknown): string {
  return field(JSON.stringify(storableJson(value)));
}

function csvLine(runId: string, step: number, row: SampleRow): string {
  return `${[
    uuidV7(),
    runId,
    String(step),
    String(row.line),
    row.requestId === null ? '' : field(row.requestId),
    field(row.input),
    field(row.output),
    row.gts === null ? '' : json(row.gts),
    row.score === null || !Number.isFinite(row.score) ? '' : String(row.score),
    json(row.extras),
    field(row.promptHash),
    String(row.responseChars),
    String(row.toolCalls),
    String(row.toolErrors),
    String(row.turns),
  ].join(',')}\n`;
}

/**
 * Streams samples into `rollout_sample` with COPY, the fastest way into Postgres and PGlite alike: no per-row
 * statement, no parameter encoding. Runs inside the caller's transaction, so a failure leaves nothing behind.
 */
export async function copySamples(
  tx: SqlTransaction,
  runId: string,
  step: number,
  rows: AsyncIterable<SampleRow>,
): Promise<void> {
  async function* lines() {
    for await (const row of rows) yield csvLine(runId, step, row);
  }
  await tx.copyCsv(COPY_TARGET, lines());
}
