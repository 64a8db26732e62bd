import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database } from '@fusebox/db/database';
import type { SqlClient } from '@fusebox/db/sql-client';
import { TEST_DATABASE_MODE, createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { dumpLine, writeDump } from '@fusebox/testing/rollout-dump';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ImportProblem } from '../src/import-file';
import { importDump } from '../src/import-dump';
import { watchDump } from '../src/watch-dump';

describe('importing verl rollout dumps', () => {
  let database: TestDatabase;
  let opened: Database;
  let client: SqlClient;
  beforeAll(async () => {
    database = await createTestDatabase();
    opened = await database.open();
    client = opened.sql;
  });
  afterAll(async () => {
    await opened?.close();
    await database?.drop();
  });

  async function count(runName: string): Promise<number> {
    const { rows } = await client.query<{ count: number }>(
      'SELECT count(*)::int AS count FROM rollout_sample s JOIN rollout_run r ON r.id = s.run_id WHERE r.name = $1',
      [runName],
    );
    return rows[0]!.count;
  }

  it('imports every step file with its scores and extras, and a re-import adds nothing', async () => {
    const dir = await writeDump({
      '1.jsonl': [dumpLine({ score: 0 }), dumpLine({ score: 1, request_id: 'r-2' })],
      '2.jsonl': [dumpLine({ step: 2, score: 0.5, acc: false })],
    });
    const first = await importDump(client, { dir, name: 'twice' });
    expect(first).toMatchObject({ files: 2, added: 3, rejected: 0 });
    const second = await importDump(client, { dir, name: 'twice' });
    expect(second).toMatchObject({ files: 2, added: 0, rejected: 0 });
    expect(await count('twice')).toBe(3);
    const { rows } = await client.query(
      `SELECT step, line, score, request_id, extras FROM rollout_sample s JOIN rollout_run r ON r.id = s.run_id
       WHERE r.name = 'twice' ORDER BY step, line`,
    );
    expect(rows).toEqual([
      { step: 1, line: 1, score: 0, request_id: null, extras: { acc: true, pred: '42' } },
      { step: 1, line: 2, score: 1, request_id: 'r-2', extras: { acc: true, pred: '42' } },
      { step: 2, line: 1, score: 0.5, request_id: null, extras: { acc: false, pred: '42' } },
    ]);
  });

  it('imports only the lines appended since the last import', async () => {
    const dir = await writeDump({ '1.jsonl': [dumpLine()] });
    await importDump(client, { dir, name: 'appended' });
    await appendFile(join(dir, '1.jsonl'), `${JSON.stringify(dumpLine({ score: 0 }))}\n`);
    const again = await importDump(client, { dir, name: 'appended' });
    expect(again.added).toBe(1);
    expect(await count('appended')).toBe(2);
  });

  it('reports malformed lines as file:line and imports the rest', async () => {
    const dir = await writeDump({
      '3.jsonl': [
        dumpLine(),
        '{"input": "cut off',
        dumpLine({ output: 7 }),
        '[1, 2]',
        dumpLine({ score: 0 }),
      ],
    });
    const problems: ImportProblem[] = [];
    const summary = await importDump(client, { dir, name: 'malformed', onProblem: (p) => problems.push(p) });
    expect(summary).toMatchObject({ added: 2, rejected: 3 });
    expect(problems.map((p) => `${p.file}:${p.line}`)).toEqual(['3.jsonl:2', '3.jsonl:3', '3.jsonl:4']);
    expect(problems[0]!.problem).toContain('not valid JSON');
    expect(problems[1]!.problem).toContain('"output" must be a string');
    expect(problems[2]!.problem).toBe('not a JSON object');
    const { rows } = await client.query<{ line: number }>(
      `SELECT line FROM rollout_sample s JOIN rollout_run r ON r.id = s.run_id WHERE r.name = 'malformed' ORDER BY line`,
    );
    expect(rows.map((row) => row.line)).toEqual([1, 5]);
  });

  it("reads Python's NaN scores as missing instead of rejecting the line", async () => {
    const dir = await writeDump({
      '1.jsonl': ['{"input": "user\\nhi\\n", "output": "hello", "score": NaN, "step": 1}'],
    });
    const summary = await importDump(client, { dir, name: 'nan' });
    expect(summary).toMatchObject({ added: 1, rejected: 0 });
  });

  it('stores what jsonb refuses, NUL and an unpaired surrogate, and keeps a literal \\u0000 as written', async () => {
    const dir = await writeDump({
      '1.jsonl': [dumpLine({ pred: 'a\uD800b', gts: String.raw`print("\u0000")`, note: 'x\u0000y' })],
    });
    const summary = await importDump(client, { dir, name: 'unstorable' });
    expect(summary).toMatchObject({ added: 1, rejected: 0 });
    const { rows } = await client.query<{ gts: unknown; extras: Record<string, unknown> }>(
      `SELECT gts, extras FROM rollout_sample s JOIN rollout_run r ON r.id = s.run_id WHERE r.name = 'unstorable'`,
    );
    expect(rows[0]!.gts).toBe(String.raw`print("\u0000")`);
    expect(rows[0]!.extras).toMatchObject({ pred: 'a\uFFFDb', note: 'x\uFFFDy' });
  });

  it('handles what crashes verl’s viewer: non-numeric names and an empty first file', async () => {
    const dir = await writeDump({ '0.jsonl': [], 'latest.jsonl': [dumpLine()], '1.jsonl': [dumpLine()] });
    const summary = await importDump(client, { dir, name: 'odd-names' });
    expect(summary).toMatchObject({ files: 2, added: 1 });
    expect(summary.skipped).toEqual([
      { name: 'latest.jsonl', reason: 'the name is not a step number ({step}.jsonl)' },
      { name: '0.jsonl', reason: 'empty, nothing to import yet' },
    ]);
  });

  it('refuses to mix two directories into one run name', async () => {
    const a = await writeDump({ '1.jsonl': [dumpLine()] });
    const b = await writeDump({ '1.jsonl': [dumpLine()] });
    await importDump(client, { dir: a, name: 'shared-name' });
    await expect(importDump(client, { dir: b, name: 'shared-name' })).rejects.toThrow('pass --name');
  });

  // Embedded, the database has one session, so files go one at a time (the tests above).
  it.runIf(TEST_DATABASE_MODE === 'postgres')(
    'imports several step files at once, each in a session of its own, and closes those sessions',
    async () => {
      const files = Object.fromEntries(
        Array.from({ length: 7 }, (_, index) => [
          `${index + 1}.jsonl`,
          [dumpLine({ step: index + 1 }), dumpLine({ step: index + 1, score: index / 10 })],
        ]),
      );
      const dir = await writeDump({ ...files, 'empty.jsonl': [], '9.jsonl': [] });
      let open = 0;
      let opened = 0;
      const openSession = async () => {
        const session = await database.connectSql();
        open += 1;
        opened += 1;
        return { ...session, close: () => ((open -= 1), session.close()) };
      };
      const seen: string[] = [];
      const summary = await importDump(client, {
        dir,
        name: 'parallel',
        jobs: 3,
        openSession,
        onFile: (file) => seen.push(file.name),
      });
      expect(summary).toMatchObject({ files: 8, added: 14, rejected: 0 });
      expect(summary.skipped.map(({ name }) => name)).toEqual(['empty.jsonl', '9.jsonl']);
      expect(seen.sort()).toEqual([...Object.keys(files), '9.jsonl'].sort());
      expect({ opened, open }).toEqual({ opened: 2, open: 0 });
      const { rows } = await client.query<{ step: number; samples: number; total: number }>(
        `SELECT step, count(*)::int AS samples, sum(score)::float AS total FROM rollout_sample s
         JOIN rollout_run r ON r.id = s.run_id WHERE r.name = 'parallel' GROUP BY step ORDER BY step`,
      );
      expect(rows).toEqual(
        Array.from({ length: 7 }, (_, index) => ({ step: index + 1, samples: 2, total: 1 + index / 10 })),
      );
      const again = await importDump(client, { dir, name: 'parallel', jobs: 3, openSession });
      expect(again).toMatchObject({ added: 0 });
    },
  );

  it.runIf(TEST_DATABASE_MODE === 'postgres')(
    'stops with the reason when another session cannot be opened, closing the ones that were',
    async () => {
      const dir = await writeDump({
        '1.jsonl': [dumpLine()],
        '2.jsonl': [dumpLine({ step: 2 })],
        '3.jsonl': [dumpLine({ step: 3 })],
      });
      let closed = 0;
      let attempts = 0;
      const openSession = async () => {
        attempts += 1;
        if (attempts === 2) throw new Error('too many clients already');
        const session = await database.connectSql();
        return { ...session, close: () => ((closed += 1), session.close()) };
      };
      await expect(importDump(client, { dir, name: 'no-sessions', jobs: 3, openSession })).rejects.toThrow(
        'too many clients already',
      );
      expect(closed).toBe(1);
      expect(await count('no-sessions')).toBe(0);
    },
  );

  it('--watch picks up steps written while it runs, leaving a half-written line for later', async () => {
    const dir = await writeDump({ '1.jsonl': [dumpLine()] });
    const stop = new AbortController();
    const passes: number[] = [];
    const watching = watchDump((options) => importDump(client, options), {
      dir,
      name: 'watched',
      signal: stop.signal,
      intervalMs: 100,
      onPass: (summary) => passes.push(summary.added),
    });
    await expect.poll(() => count('watched')).toBe(1);
    await writeFile(join(dir, '2.jsonl'), `${JSON.stringify(dumpLine({ step: 2 }))}\n{"input": "half`);
    await expect.poll(() => count('watched')).toBe(2);
    await appendFile(join(dir, '2.jsonl'), ' done", "output": "ok", "score": 1}\n');
    await expect.poll(() => count('watched')).toBe(3);
    stop.abort();
    await watching;
    expect(passes.reduce((a, b) => a + b, 0)).toBe(3);
  });

  describe('a last line written in two parts', () => {
    const whole = JSON.stringify(dumpLine({ score: 0.5, request_id: 'split' }));
    const cut = whole.indexOf('"output"');

    async function lines(runName: string) {
      const { rows } = await client.query<{ line: number; request_id: string | null }>(
        `SELECT line, request_id FROM rollout_sample s JOIN rollout_run r ON r.id = s.run_id
         WHERE r.name = $1 ORDER BY step, line`,
        [runName],
      );
      return rows.map((row) => [row.line, row.request_id]);
    }

    // A one-shot import treats every file as finished, as a watcher does once the file is quiet (`quietMs`):
    // both used to reject the first part, then its rest, losing the sample.
    for (const [mode, quietMs] of [
      ['two one-shot imports', undefined],
      ['--watch, after the file went quiet', 0],
    ] as const) {
      it(`loses nothing across ${mode}`, async () => {
        const name = `split-${quietMs ?? 'once'}`;
        const dir = await writeDump({ '1.jsonl': [dumpLine({ request_id: 'first' })] });
        await appendFile(join(dir, '1.jsonl'), whole.slice(0, cut));
        const problems: ImportProblem[] = [];
        const options = {
          dir,
          name,
          onProblem: (problem: ImportProblem) => problems.push(problem),
          ...(quietMs === undefined ? {} : { quietMs }),
        };
        expect(await importDump(client, options)).toMatchObject({ added: 1, rejected: 0 });
        await appendFile(join(dir, '1.jsonl'), `${whole.slice(cut)}\n`);
        expect(await importDump(client, options)).toMatchObject({ added: 1, rejected: 0 });
        expect(problems).toEqual([]);
        expect(await lines(name)).toEqual([
          [1, 'first'],
          [2, 'split'],
        ]);
      });
    }

    it('takes a whole sample still missing its newline, and does not count the newline as a line', async () => {
      const dir = await writeDump({ '1.jsonl': [] });
      await appendFile(join(dir, '1.jsonl'), whole);
      expect(await importDump(client, { dir, name: 'unterminated' })).toMatchObject({
        added: 1,
        rejected: 0,
      });
      await appendFile(join(dir, '1.jsonl'), `\n${JSON.stringify(dumpLine({ request_id: 'next' }))}\n`);
      expect(await importDump(client, { dir, name: 'unterminated' })).toMatchObject({
        added: 1,
        rejected: 0,
      });
      expect(await lines('unterminated')).toEqual([
        [1, 'split'],
        [2, 'next'],
      ]);
    });

    it('still rejects a last line that is whole JSON but no sample', async () => {
      const dir = await writeDump({ '1.jsonl': [dumpLine()] });
      await appendFile(join(dir, '1.jsonl'), '[1, 2]');
      expect(await importDump(client, { dir, name: 'bad-last' })).toMatchObject({ added: 1, rejected: 1 });
    });
  });
});
