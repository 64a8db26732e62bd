import { readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { SqlClient } from '@fusebox/db/sql-client';
import {
  type EmbeddedTestDatabase,
  type PostgresTestDatabase,
  type TestDatabase,
  createEmbeddedTestDatabase,
  createPostgresTestDatabase,
} from '@fusebox/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpLine, writeDump } from '@fusebox/testing/rollout-dump';
import { runCli, startServer } from './serve-process';
import { BUILTIN, act, fenced, post } from './session-client';

const TABLES = [
  'task',
  'session',
  'action',
  'session_event',
  'execution',
  'rollout_run',
  'rollout_file',
  'rollout_sample',
  'rollout_term',
];

/** Every row of every table, as Postgres renders it in JSON, in a stable order: what a move must keep. */
async function contents(database: TestDatabase): Promise<Record<string, unknown[]>> {
  const sql: SqlClient = await database.connectSql();
  try {
    const result: Record<string, unknown[]> = {};
    for (const table of TABLES) {
      const { rows } = await sql.query<{ row: string }>(
        `SELECT row_to_json(t)::text AS "row" FROM "${table}" t`,
      );
      result[table] = rows
        .map(({ row }) => JSON.parse(row) as unknown)
        .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
    }
    return result;
  } finally {
    await sql.close();
  }
}

// Moving a laptop's embedded database into Postgres: it needs both, whatever the mode under test. Each test runs
// several commands, each opening a database: slow on a loaded machine.
describe('fusebox db export and db import', { timeout: 180_000 }, () => {
  let embedded: EmbeddedTestDatabase;
  let postgres: PostgresTestDatabase;
  let dir: string;
  let file: string;
  let sid: string;

  beforeAll(async () => {
    [embedded, postgres] = await Promise.all([createEmbeddedTestDatabase(), createPostgresTestDatabase()]);
    dir = await mkdtemp(join(tmpdir(), 'fusebox-transfer-'));
    file = join(dir, 'all.fusebox.gz');
    // Real data of every kind: a rollout dump, then executions and a whole agent session through a server.
    const dump = await writeDump({
      '1.jsonl': [dumpLine({ score: 0.5, request_id: 'r-1' }), dumpLine({ score: null, note: 'ünïcode ✓' })],
      '2.jsonl': [dumpLine({ step: 2, score: 1 })],
    });
    expect((await runCli(['rollouts', 'import', dump, '--name', 'moved-run'], embedded.env)).code).toBe(0);
    const server = await startServer(embedded.env, ['--no-dashboard'], 120_000);
    try {
      await fetch(`${server.url}/run_code`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code: 'print(1)\nraise SystemExit(3)', language: 'python' }),
      });
      sid = (await post(server, '/start_instance', { instance_hash: BUILTIN.add })).body.sid as string;
      await act(server, sid, fenced('python', 'def add(a, b):\n    return a + b'));
      await post(server, '/compute_reward', { sid });
    } finally {
      await server.stop();
    }
  }, 300_000);
  afterAll(async () => {
    await Promise.all([embedded?.drop(), postgres?.drop()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('moves every session, execution, task and rollout from the embedded database into Postgres', async () => {
    const exported = await runCli(['db', 'export', file], embedded.env);
    expect(exported.code).toBe(0);
    // Progress, off a terminal: a line per table.
    expect(exported.stderr).toContain('session: 1 rows\n');
    expect(exported.stderr).toContain('rollout_sample: 3 rows\n');
    expect(exported.stdout).toMatch(/^exported \d+ rows from .+ to .+all\.fusebox\.gz: task 6, session 1, /);

    const imported = await runCli(['db', 'import', file], postgres.env);
    expect(imported.code).toBe(0);
    expect(imported.stderr).toContain('rollout_sample: 3 rows, 3 new\n');
    expect(imported.stdout).toContain(`into ${postgres.url} (0 were already there)`);

    const [from, to] = await Promise.all([contents(embedded), contents(postgres)]);
    expect(from.session).toHaveLength(1);
    expect(from.rollout_sample).toHaveLength(3);
    expect(from.rollout_term).toContainEqual(
      expect.objectContaining({ term: 'multiply', step: 1, first_line: 1, lines: [1, 2] }),
    );
    expect(to).toEqual(from);
  });

  it('adds nothing when the same file is imported again', async () => {
    const again = await runCli(['db', 'import', file], postgres.env);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^nothing new: all \d+ rows of .+ were already in /);
  });

  it('serves the moved session from Postgres as it was', async () => {
    const server = await startServer(postgres.env, ['--no-dashboard'], 120_000);
    try {
      const reward = await post(server, '/compute_reward', { sid });
      expect(reward.body).toMatchObject({ reward: 1, f2p_count: 4, f2p_total: 4 });
      const response = await fetch(
        `${server.url}/trpc/sessions.byId?input=${encodeURIComponent(JSON.stringify({ id: sid }))}`,
      );
      const session = ((await response.json()) as { result: { data: { actions: { code: string }[] } } })
        .result.data;
      expect(session.actions.map((action) => action.code)).toEqual(['def add(a, b):\n    return a + b\n']);
    } finally {
      await server.stop();
    }
  });

  it('refuses to overwrite a file, and leaves nothing behind from a cut-off one', async () => {
    const existing = await runCli(['db', 'export', file], embedded.env);
    expect(existing.code).toBe(1);
    expect(existing.stderr).toContain(`${file} already exists`);

    const bytes = await readFile(file);
    const cut = join(dir, 'cut.fusebox.gz');
    await writeFile(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const empty = await createPostgresTestDatabase();
    try {
      const attempt = await runCli(['db', 'import', cut], empty.env);
      expect(attempt.code).toBe(1);
      expect(attempt.stderr).toMatch(
        /fusebox db import: .*cut\.fusebox\.gz (ends before|is not a Fusebox export)/,
      );
      expect(await empty.inspect((prisma) => prisma.task.count())).toBe(0);

      const notAnExport = join(dir, 'notes.txt');
      await writeFile(notAnExport, 'hello');
      const wrong = await runCli(['db', 'import', notAnExport], empty.env);
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain(`${notAnExport} is not a Fusebox export`);
    } finally {
      await empty.drop();
    }
  });

  it('refuses an export from before a column was replaced, saying how to carry it over', async () => {
    // An export made before the search index moved to rollout_term: rollout_sample still had search_terms.
    const lines = gunzipSync(await readFile(file))
      .toString('utf8')
      .trimEnd()
      .split('\n');
    const header = JSON.parse(lines[0]!) as {
      migrations: string[];
      tables: { name: string; columns: string[] }[];
    };
    header.migrations = header.migrations.filter((name) => !name.endsWith('_rollout_terms'));
    header.tables.find((table) => table.name === 'rollout_sample')!.columns.push('search_terms');
    const old = join(dir, 'old.fusebox.gz');
    await writeFile(old, gzipSync([JSON.stringify(header), ...lines.slice(1)].join('\n') + '\n'));
    const empty = await createPostgresTestDatabase();
    try {
      const attempt = await runCli(['db', 'import', old], empty.env);
      expect(attempt.code).toBe(1);
      expect(attempt.stderr).toContain(
        'was exported by an older Fusebox, whose column search_terms of the table rollout_sample a later migration replaced',
      );
      expect(attempt.stderr).toContain('then `fusebox db migrate` with this one');
      expect(await empty.inspect((prisma) => prisma.task.count())).toBe(0);
    } finally {
      await empty.drop();
    }
  });

  it('refuses, importing nothing, when the target holds a different run of the same name', async () => {
    const other = await createPostgresTestDatabase();
    try {
      const dump = await writeDump({ '1.jsonl': [dumpLine()] });
      expect((await runCli(['rollouts', 'import', dump, '--name', 'moved-run'], other.env)).code).toBe(0);
      const attempt = await runCli(['db', 'import', file], other.env);
      expect(attempt.code).toBe(1);
      expect(attempt.stderr).toContain('the same names or ids');
      expect(attempt.stderr).toContain('Nothing was imported.');
      expect(await other.inspect((prisma) => prisma.session.count())).toBe(0);
    } finally {
      await other.drop();
    }
  });
});
