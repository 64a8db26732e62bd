import { randomBytes } from 'node:crypto';
import { withDatabase } from './database-url';
import { ensureDatabase, quoteIdentifier } from './ensure-database';
import { migrate } from './migrate';
import { migrationsFingerprint, readMigrations } from './migrations';
import { connectPostgres, pgSqlClient } from './sql-client';

/** The server tests use. Tests never touch the product's own database. */
export const TEST_SERVER_URL =
  process.env.FUSEBOX_TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/fusebox_test';

const TEST_DATABASE_PREFIX = 'fusebox_test_';
/** Serialises template creation across parallel test workers. */
const TEMPLATE_LOCK = 0x7465_7374;

export interface TestDatabase {
  /** A fresh, fully migrated database of its own. */
  url: string;
  name: string;
  drop(): Promise<void>;
}

/**
 * Creates a fresh migrated database for one test file, copied from a template that is migrated once per set of
 * migration files, so it costs a `CREATE DATABASE … TEMPLATE` rather than a full migration. With
 * `migrated: false` the database is empty, for tests of migrating itself.
 *
 * @example
 * const db = await createTestDatabase();
 * afterAll(() => db.drop());
 */
export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const migrations = await readMigrations();
  const template = `${TEST_DATABASE_PREFIX}tpl_${migrationsFingerprint(migrations).slice(0, 16)}`;
  await ensureDatabase(TEST_SERVER_URL);
  const admin = await connectPostgres(TEST_SERVER_URL);
  try {
    await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
    if (exists.rowCount === 0) {
      const building = `${template}_building`;
      await admin.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(building)} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${quoteIdentifier(building)}`);
      const client = await connectPostgres(withDatabase(TEST_SERVER_URL, building));
      const sql = pgSqlClient(client);
      try {
        await migrate(sql, { migrations });
      } finally {
        await sql.close();
      }
      await admin.query(`ALTER DATABASE ${quoteIdentifier(building)} RENAME TO ${quoteIdentifier(template)}`);
    }
    await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK]);

    const name = `${TEST_DATABASE_PREFIX}${process.pid}_${randomBytes(4).toString('hex')}`;
    const copy = options.migrated === false ? '' : ` TEMPLATE ${quoteIdentifier(template)}`;
    await admin.query(`CREATE DATABASE ${quoteIdentifier(name)}${copy}`);
    return {
      name,
      url: withDatabase(TEST_SERVER_URL, name),
      drop: () => dropDatabase(name),
    };
  } finally {
    await admin.end();
  }
}

async function dropDatabase(name: string): Promise<void> {
  const admin = await connectPostgres(TEST_SERVER_URL);
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
