import { createHash } from 'node:crypto';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MigrationError } from '../src/errors/migration-error';
import { migrate } from '../src/migrate';
import { MIGRATIONS_DIR, readMigrations } from '../src/migrations';
import { connectPostgres, pgSqlClient, type SqlClient } from '../src/sql-client';
import {
  TEST_DATABASE_MODE,
  createPostgresTestDatabase,
  createTestDatabase,
  type TestDatabase,
} from '../src/test-database';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function emptyDatabase(): Promise<{ database: TestDatabase; sql: SqlClient }> {
  const database = await createTestDatabase({ migrated: false });
  const sql = await database.connectSql();
  cleanups.push(
    () => database.drop(),
    () => sql.close(),
  );
  return { database, sql };
}

async function migrationsFolder(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'fusebox-migrations-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  for (const [name, sql] of Object.entries(files)) {
    await mkdir(join(dir, name));
    await writeFile(join(dir, name, 'migration.sql'), sql);
  }
  return dir;
}

describe('migrate', () => {
  it('applies every migration once and records it exactly as prisma migrate deploy does', async () => {
    const { sql } = await emptyDatabase();
    const first = await migrate(sql);
    const files = await readMigrations();
    expect(first.applied).toEqual(files.map((file) => file.name));

    const { rows } = await sql.query<{
      migration_name: string;
      checksum: string;
      finished_at: Date | null;
      logs: string | null;
      rolled_back_at: Date | null;
      applied_steps_count: number;
      id: string;
    }>('SELECT * FROM "_prisma_migrations" ORDER BY migration_name');
    expect(rows).toHaveLength(files.length);
    for (const [index, row] of rows.entries()) {
      const bytes = await readFile(join(MIGRATIONS_DIR, row.migration_name, 'migration.sql'));
      expect(row.checksum).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(row.migration_name).toBe(files[index]?.name);
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.rolled_back_at).toBeNull();
      expect(row.logs).toBeNull();
      expect(row.applied_steps_count).toBe(1);
      expect(row.id).toMatch(/^[0-9a-f-]{36}$/);
    }

    const second = await migrate(sql);
    expect(second).toEqual({ applied: [], alreadyApplied: files.length, unknown: [] });
    const count = await sql.query<{ n: string }>('SELECT count(*) AS n FROM "_prisma_migrations"');
    expect(Number(count.rows[0]?.n)).toBe(files.length);
  });

  it('moves the search words of runs imported before rollout_term into it', async () => {
    const { sql } = await emptyDatabase();
    const all = await readMigrations();
    const at = all.findIndex((migration) => migration.name.endsWith('_rollout_terms'));
    expect(at).toBeGreaterThan(0);
    await migrate(sql, { migrations: all.slice(0, at) });
    const run = '01900000-0000-7000-8000-000000000001';
    await sql.query(
      `INSERT INTO "rollout_run" ("id", "name", "source_dir", "updated_at") VALUES ($1, 'old', '/old', now())`,
      [run],
    );
    for (const [step, line, terms] of [
      [3, 2, '{print,total}'],
      [3, 1, '{print}'],
      // The old importer quoted the word "null"; an unquoted NULL (which it never wrote) is left out.
      [4, 1, '{total,"null",NULL}'],
    ] as const) {
      await sql.query(
        `INSERT INTO "rollout_sample" ("id", "run_id", "step", "line", "input", "output", "search_terms")
         VALUES (gen_random_uuid(), $1, $2, $3, '', '', $4)`,
        [run, step, line, terms],
      );
    }
    await migrate(sql);
    const { rows } = await sql.query(
      'SELECT "term", "step", "first_line", "lines" FROM "rollout_term" ORDER BY "term", "step"',
    );
    expect(rows).toEqual([
      { term: 'null', step: 4, first_line: 1, lines: [1] },
      { term: 'print', step: 3, first_line: 1, lines: [1, 2] },
      { term: 'total', step: 3, first_line: 2, lines: [2] },
      { term: 'total', step: 4, first_line: 1, lines: [1] },
    ]);
    const columns = await sql.query(
      `SELECT 1 FROM information_schema.columns WHERE table_name = 'rollout_sample' AND column_name = 'search_terms'`,
    );
    expect(columns.rows).toEqual([]);
  });

  it('refuses a migration that was edited after it was applied, naming it', async () => {
    const { sql } = await emptyDatabase();
    const dir = await migrationsFolder({ '20260101000000_first': 'CREATE TABLE one (id int);' });
    await migrate(sql, { migrations: await readMigrations(dir) });
    await writeFile(join(dir, '20260101000000_first', 'migration.sql'), 'CREATE TABLE one (id bigint);');

    const attempt = migrate(sql, { migrations: await readMigrations(dir) });
    await expect(attempt).rejects.toBeInstanceOf(MigrationError);
    await expect(attempt).rejects.toThrow(/20260101000000_first was edited after it was applied/);
  });

  it('rolls a failing migration back completely and records nothing for it', async () => {
    const { sql } = await emptyDatabase();
    const dir = await migrationsFolder({
      '20260101000000_good': 'CREATE TABLE good (id int);',
      '20260102000000_bad': 'CREATE TABLE half (id int);\nSELECT * FROM no_such_table;',
    });
    const attempt = migrate(sql, { migrations: await readMigrations(dir) });
    await expect(attempt).rejects.toThrow(/20260102000000_bad failed and was rolled back: .*no_such_table/);

    const tables = await sql.query<{ relname: string }>(
      "SELECT relname FROM pg_class WHERE relname IN ('good', 'half') ORDER BY relname",
    );
    expect(tables.rows.map((row) => row.relname)).toEqual(['good']);
    const recorded = await sql.query<{ migration_name: string }>(
      'SELECT migration_name FROM "_prisma_migrations"',
    );
    expect(recorded.rows.map((row) => row.migration_name)).toEqual(['20260101000000_good']);
  });

  it('refuses to continue past a migration an earlier run left unfinished', async () => {
    const { sql } = await emptyDatabase();
    const dir = await migrationsFolder({ '20260101000000_first': 'CREATE TABLE one (id int);' });
    await migrate(sql, { migrations: [] });
    await sql.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, applied_steps_count)
       VALUES ('00000000-0000-0000-0000-000000000001', 'x', '20260101000000_first', 0)`,
    );
    await expect(migrate(sql, { migrations: await readMigrations(dir) })).rejects.toThrow(
      /20260101000000_first failed in an earlier run/,
    );
  });

  // Postgres only: two sessions on one database, which an embedded one never has.
  it.skipIf(TEST_DATABASE_MODE === 'embedded')(
    'lets two concurrent runners apply each migration exactly once',
    async () => {
      const database = await createPostgresTestDatabase({ migrated: false });
      const sql = pgSqlClient(await connectPostgres(database.url));
      const other = pgSqlClient(await connectPostgres(database.url));
      cleanups.push(
        () => database.drop(),
        () => sql.close(),
        () => other.close(),
      );
      const [a, b] = await Promise.all([migrate(sql), migrate(other)]);
      const files = await readMigrations();
      expect([...a.applied, ...b.applied].sort()).toEqual(files.map((file) => file.name));
      const count = await sql.query<{ n: string }>('SELECT count(*) AS n FROM "_prisma_migrations"');
      expect(Number(count.rows[0]?.n)).toBe(files.length);
    },
  );

  it('reports migrations the database has but this checkout lacks', async () => {
    const { sql } = await emptyDatabase();
    const dir = await migrationsFolder({ '20260101000000_first': 'CREATE TABLE one (id int);' });
    await migrate(sql, { migrations: await readMigrations(dir) });
    const result = await migrate(sql, { migrations: [] });
    expect(result.unknown).toEqual(['20260101000000_first']);
  });
});
