import { readFile } from 'node:fs/promises';
import type { Database } from '@fusebox/db/database';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { dumpLine, writeDump } from '@fusebox/testing/rollout-dump';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDump } from '../src/import-dump';
import { responseMetrics } from '../src/response-metrics';

/** The SQL that counted rows imported before the importer did, taken from the migration itself. */
const MIGRATION = new URL(
  '../../../prisma/migrations/20261125200500_rollout_sample_metrics/migration.sql',
  import.meta.url,
);

const OUTPUTS = [
  '',
  'just an answer',
  'assistant\n<think>x</think>\n<tool_call>\n{"name": "code_interpreter"}\n</tool_call>\ntool\n42\n\nassistant\n#### 42',
  '<tool_call><tool_call>\nassistant\n\nassistant\nstill the model',
  'emoji 😀 and accents éé count as one character each',
];

describe('response metrics', () => {
  let database: TestDatabase;
  let opened: Database;
  beforeAll(async () => {
    database = await createTestDatabase();
    opened = await database.open();
  });
  afterAll(async () => {
    await opened?.close();
    await database?.drop();
  });

  it('counts tool calls, turns and code points', () => {
    expect(responseMetrics(OUTPUTS[2]!)).toEqual({
      responseChars: OUTPUTS[2]!.length,
      toolCalls: 1,
      turns: 2,
    });
    expect(responseMetrics(OUTPUTS[3]!)).toMatchObject({ toolCalls: 2, turns: 3 });
    expect(responseMetrics('😀')).toMatchObject({ responseChars: 1 });
    expect(responseMetrics('')).toEqual({ responseChars: 0, toolCalls: 0, turns: 0 });
  });

  it('stores at import what the migration computes in SQL for older rows', async () => {
    const dir = await writeDump({ '1.jsonl': OUTPUTS.map((output) => dumpLine({ output })) });
    await importDump(opened.sql, { dir, name: 'metrics' });
    const imported = await opened.sql.query(
      'SELECT line, response_chars, tool_calls, turns FROM rollout_sample ORDER BY line',
    );
    const migration = await readFile(MIGRATION, 'utf8');
    const update = migration.slice(migration.indexOf('UPDATE'));
    await opened.sql.query('UPDATE rollout_sample SET response_chars = -1, tool_calls = -1, turns = -1');
    await opened.sql.query(update);
    const recounted = await opened.sql.query(
      'SELECT line, response_chars, tool_calls, turns FROM rollout_sample ORDER BY line',
    );
    expect(imported.rows).toHaveLength(OUTPUTS.length);
    expect(recounted.rows).toEqual(imported.rows);
    expect(imported.rows.map((row) => row.turns)).toEqual(
      OUTPUTS.map((output) => responseMetrics(output).turns),
    );
  });
});
