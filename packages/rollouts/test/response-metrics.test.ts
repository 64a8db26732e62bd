import { readFile } from 'node:fs/promises';
import type { Database } from '@fusebox/db/database';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { dumpLine, writeDump } from '@fusebox/testing/rollout-dump';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDump } from '../src/import-dump';
import { responseMetrics } from '../src/response-metrics';

/** The SQL that counted rows imported before the importer did, taken from the migrations themselves. */
const MIGRATIONS = ['20261125200500_rollout_sample_metrics', '20261126170000_rollout_sample_tool_errors'].map(
  (name) => new URL(`../../../prisma/migrations/${name}/migration.sql`, import.meta.url),
);
const COLUMNS = 'line, response_chars, tool_calls, tool_errors, turns';

const OUTPUTS = [
  '',
  'just an answer',
  'assistant\n<think>x</think>\n<tool_call>\n{"name": "code_interpreter"}\n</tool_call>\ntool\n42\n\nassistant\n#### 42',
  '<tool_call><tool_call>\nassistant\n\nassistant\nstill the model',
  'emoji 😀 and accents éé count as one character each',
  // Tool responses, in both templates' shapes, failing and not.
  '<tool_call>{}</tool_call>\nuser\n<tool_response>\nTraceback (most recent call last):\n  File "<string>", line 1\nNameError: x\n</tool_response>\nassistant\nfixed',
  'a\ntool\nno stdout here\n\nassistant\nb\ntool\n42\nassistant\nc\ntool\nNO STDOUT HERE',
  'tool\nTimed Out\nuser\n<tool_response>ValueError: x</tool_response> said the user\nuser\n<tool_response>ok</tool_response>\n<tool_response>  KeyError: 1</tool_response>',
  // Not failures: prose, an error the model wrote itself, a prompt-like user message, a cut output.
  'I expect a NameError: here\ntool\n42 [truncated]\nuser\nno stdout here\nassistant\nNameError: mine',
  // Edge cases of the rules: role lines back to back, a role line that opens the text, ASCII-only folding.
  'tool\ntool\nTraceback (most recent call last)\nuser\nuser\n<tool_response>x</tool_response>\nuser\n<tool_response>TİMED OUT, no ſtdout here</tool_response>',
  '\ntool\n\ntool\nxError: no\n\n\nuser\n<tool_response>\n\tZeroDivisionError: division by zero</tool_response>\n',
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
      toolErrors: 0,
      turns: 2,
    });
    expect(responseMetrics(OUTPUTS[3]!)).toMatchObject({ toolCalls: 2, turns: 3 });
    expect(responseMetrics('😀')).toMatchObject({ responseChars: 1 });
    expect(responseMetrics('')).toEqual({ responseChars: 0, toolCalls: 0, toolErrors: 0, turns: 0 });
  });

  it('stores at import what the migrations compute in SQL for older rows', async () => {
    const dir = await writeDump({ '1.jsonl': OUTPUTS.map((output) => dumpLine({ output })) });
    await importDump(opened.sql, { dir, name: 'metrics' });
    const imported = await opened.sql.query(`SELECT ${COLUMNS} FROM rollout_sample ORDER BY line`);
    // What a column holds before its migration counts it: the ALTER's default.
    await opened.sql.query(
      'UPDATE rollout_sample SET response_chars = 0, tool_calls = 0, tool_errors = 0, turns = 0',
    );
    for (const file of MIGRATIONS) {
      const migration = await readFile(file, 'utf8');
      await opened.sql.query(migration.slice(migration.indexOf('UPDATE')));
    }
    const recounted = await opened.sql.query(`SELECT ${COLUMNS} FROM rollout_sample ORDER BY line`);
    expect(imported.rows).toHaveLength(OUTPUTS.length);
    expect(recounted.rows).toEqual(imported.rows);
    expect(imported.rows.map((row) => [row.turns, row.tool_errors])).toEqual(
      OUTPUTS.map((output) => [responseMetrics(output).turns, responseMetrics(output).toolErrors]),
    );
    // The cases above hold failures to count, so the comparison is not of zeros.
    expect(imported.rows.map((row) => row.tool_errors)).toEqual([0, 0, 0, 0, 0, 1, 2, 2, 0, 1, 1]);
  });
});
