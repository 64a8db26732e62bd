import { randomBytes } from 'node:crypto';
import { type PostgresTestDatabase, createPostgresTestDatabase } from '@fusebox/db/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listLimiters } from '../src/list-limiters';
import { createPgLimiter } from '../src/pg-limiter';

/** The columns and indexes of `limiter_key`, as the catalog describes them. */
async function tableShape(url: string): Promise<unknown> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const columns = await client.query(
      `SELECT column_name, data_type, datetime_precision, is_nullable, column_default
         FROM information_schema.columns WHERE table_name = 'limiter_key' ORDER BY column_name`,
    );
    const indexes = await client.query(
      `SELECT indexname, replace(indexdef, '"', '') AS indexdef FROM pg_indexes
        WHERE tablename = 'limiter_key' ORDER BY indexname`,
    );
    return { columns: columns.rows, indexes: indexes.rows };
  } finally {
    await client.end();
  }
}

describe('on a database that Fusebox never migrated', () => {
  let bare: PostgresTestDatabase;
  let migrated: PostgresTestDatabase;

  beforeAll(async () => {
    [bare, migrated] = await Promise.all([
      createPostgresTestDatabase({ migrated: false }),
      createPostgresTestDatabase(),
    ]);
  });

  afterAll(async () => {
    await Promise.all([bare?.drop(), migrated?.drop()]);
  });

  it('lists no limiters before the first one starts', async () => {
    expect(await listLimiters({ connectionString: bare.url })).toEqual([]);
  });

  it('creates its table once when limiters start together, in the shape of the migrations', async () => {
    const limiters = await Promise.all(
      ['a', 'a', 'b', 'c'].map((key) => createPgLimiter({ connectionString: bare.url, key, limit: 2 })),
    );
    try {
      const permit = await limiters[0]!.acquire({ timeoutMs: 5_000 });
      const listed = await listLimiters({ connectionString: bare.url });
      expect(listed.map(({ key, inFlight, limit }) => ({ key, inFlight, limit }))).toEqual([
        { key: 'a', inFlight: 1, limit: 2 },
        { key: 'b', inFlight: 0, limit: 2 },
        { key: 'c', inFlight: 0, limit: 2 },
      ]);
      await permit.release();
    } finally {
      await Promise.all(limiters.map((limiter) => limiter.close()));
    }
    expect(await tableShape(bare.url)).toEqual(await tableShape(migrated.url));
  });

  it('says what to do when its role may not create the table', async () => {
    const fresh = await createPostgresTestDatabase({ migrated: false });
    const role = `limiter_reader_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: fresh.url });
    await admin.connect();
    try {
      // Postgres 15 lets only the database owner create in `public`; this role may connect and nothing more.
      await admin.query(`CREATE ROLE ${role} LOGIN`);
      await admin.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`);
      const url = new URL(fresh.url);
      url.username = role;
      url.password = '';
      await expect(createPgLimiter({ connectionString: url.toString(), key: 'k', limit: 1 })).rejects.toThrow(
        /no limiter_key table and this role may not create it/,
      );
      // The same start as a role that may create tables works.
      const limiter = await createPgLimiter({ connectionString: fresh.url, key: 'k', limit: 1 });
      await limiter.close();
    } finally {
      await admin.end();
      await fresh.drop();
      const cleanup = new pg.Client({ connectionString: migrated.url });
      await cleanup.connect();
      await cleanup.query(`DROP ROLE IF EXISTS ${role}`).finally(() => cleanup.end());
    }
  });
});
