import { describe, expect, it } from 'vitest';
import { parseDatabaseUrl, redactDatabaseUrl, withDatabase } from '../src/database-url';
import { ensureDatabase } from '../src/ensure-database';
import { DatabaseUnreachableError } from '../src/errors/database-unreachable-error';
import { isDatabaseError } from '../src/errors/database-error';
import { connectPostgres } from '../src/sql-client';
import { TEST_SERVER_URL } from '../src/test-database';

describe('connecting', () => {
  it('fails fast with the URL and how to start Postgres when nothing listens', async () => {
    const started = Date.now();
    const url = 'postgresql://postgres:secret@127.0.0.1:1/fusebox';
    const error = await connectPostgres(url).catch((caught: unknown) => caught);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(error).toBeInstanceOf(DatabaseUnreachableError);
    expect(isDatabaseError(error)).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain('127.0.0.1:1/fusebox');
    expect(message).toContain('pg_ctlcluster');
    expect(message).not.toContain('secret');
  });

  it('creates a missing database once, and leaves an existing one alone', async () => {
    const name = `fusebox_test_ensure_${process.pid}_${Date.now()}`;
    const url = withDatabase(TEST_SERVER_URL, name);
    try {
      expect(await ensureDatabase(url)).toBe(true);
      expect(await ensureDatabase(url)).toBe(false);
      const client = await connectPostgres(url);
      const { rows } = await client.query<{ db: string }>('SELECT current_database() AS db');
      await client.end();
      expect(rows[0]?.db).toBe(name);
    } finally {
      const admin = await connectPostgres(withDatabase(TEST_SERVER_URL, 'postgres'));
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });
});

describe('database URLs', () => {
  it('explains what is wrong with a malformed URL', () => {
    expect(() => parseDatabaseUrl('not a url')).toThrow(/expected a postgresql:\/\/ URL/);
    expect(() => parseDatabaseUrl('mysql://localhost/x')).toThrow(/protocol "mysql:"/);
    expect(() => parseDatabaseUrl('postgresql://localhost')).toThrow(/expected a database name/);
    expect(parseDatabaseUrl('postgres://u@h:5/db%20x').database).toBe('db x');
  });

  it('never prints a password', () => {
    expect(redactDatabaseUrl('postgresql://u:pw@h/db')).toBe('postgresql://u:***@h/db');
  });
});
