import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type PrismaClient, createPrismaClient } from './client';
import { lockDataDir } from './data-dir-lock';
import { type Database, type DatabaseMode, type OpenDatabaseOptions, openDatabase } from './database';
import { withDatabase } from './database-url';
import { openEmbeddedDatabase } from './embedded';
import { ensureDatabase, quoteIdentifier } from './ensure-database';
import { EmbeddedDatabaseError } from './errors/embedded-database-error';
import { createHeldPrismaClient } from './held-database/held-prisma-client';
import { migrate } from './migrate';
import { migrationsFingerprint, readMigrations } from './migrations';
import { type SqlClient, connectPostgres, pgSqlClient } from './sql-client';

/** The server tests use. Tests never touch the product's own database. */
export const TEST_SERVER_URL =
  process.env.FUSEBOX_TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/fusebox_test';

/**
 * The mode this test run covers, set by `npm test`'s matrix through FUSEBOX_TEST_DATABASE_MODE: `postgres` (the
 * default) or `embedded`. `createTestDatabase()` creates a database of this mode.
 */
export const TEST_DATABASE_MODE: DatabaseMode = testDatabaseMode(process.env.FUSEBOX_TEST_DATABASE_MODE);

/** Where embedded test databases and their templates live. */
const EMBEDDED_ROOT = join(tmpdir(), 'fusebox-test-embedded');

const TEST_DATABASE_PREFIX = 'fusebox_test_';
/** Serialises template creation across parallel test workers. */
const TEMPLATE_LOCK = 0x7465_7374;

interface TestDatabaseBase {
  name: string;
  /**
   * The environment that points a `fusebox` process at this database. DATABASE_URL is always set, empty for an
   * embedded one, so a DATABASE_URL in the developer's shell cannot leak in.
   */
  env: Record<string, string>;
  /** Opens it as Fusebox does (`openDatabase`, which migrates); close it before dropping. */
  open(options?: OpenDatabaseOptions): Promise<Database>;
  /** A SQL session on it that migrates nothing, for tests of the migrations themselves. */
  connectSql(): Promise<SqlClient>;
  /**
   * A Prisma client for reading the data while a `fusebox serve` started on it (with `env`) runs: on Postgres an
   * ordinary client; embedded a read-only one that reads through that server, the one process that can open it.
   */
  reader(): PrismaClient;
  /** Opens it, runs `fn` on Prisma and closes it again: for looking at what a command wrote, with no server up. */
  inspect<T>(fn: (prisma: PrismaClient) => Promise<T>): Promise<T>;
  drop(): Promise<void>;
}

export interface PostgresTestDatabase extends TestDatabaseBase {
  mode: 'postgres';
  /** A fresh database of its own on the test server. */
  url: string;
}

export interface EmbeddedTestDatabase extends TestDatabaseBase {
  mode: 'embedded';
  /** A fresh data directory of its own; one process at a time can open it. */
  dataDir: string;
}

export type TestDatabase = PostgresTestDatabase | EmbeddedTestDatabase;

export interface TestDatabaseOptions {
  /** false: an empty database, for tests of migrating itself. Default true: fully migrated. */
  migrated?: boolean;
}

/**
 * Creates a fresh database for one test file, of the mode under test (TEST_DATABASE_MODE). It is copied from a
 * template migrated once per set of migration files: a `CREATE DATABASE … TEMPLATE` on Postgres, a copy of a
 * data directory when embedded. Tests that need a Postgres server whatever the mode use
 * `createPostgresTestDatabase`.
 *
 * @example
 * const db = await createTestDatabase();
 * afterAll(() => db.drop());
 * const server = await startServer(db.env);
 */
export function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  return TEST_DATABASE_MODE === 'embedded'
    ? createEmbeddedTestDatabase(options)
    : createPostgresTestDatabase(options);
}

/**
 * A fresh database on the test Postgres server, for tests that by nature need one (several processes sharing a
 * database, advisory locks across connections, raw `pg` connections). They run in the Postgres pass only.
 *
 * @example
 * const db = await createPostgresTestDatabase();
 * const limiter = await createPgLimiter({ connectionString: db.url, key: 'k', limit: 2 });
 */
export async function createPostgresTestDatabase(
  options: TestDatabaseOptions = {},
): Promise<PostgresTestDatabase> {
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
    const url = withDatabase(TEST_SERVER_URL, name);
    const open = (openOptions?: OpenDatabaseOptions) => openDatabase({ url }, openOptions);
    return {
      mode: 'postgres',
      name,
      url,
      env: { DATABASE_URL: url },
      open,
      inspect: (fn) => inspect(open, fn),
      connectSql: async () => pgSqlClient(await connectPostgres(url)),
      reader: () => createPrismaClient(url),
      drop: () => dropDatabase(name),
    };
  } finally {
    await admin.end();
  }
}

/**
 * A fresh embedded data directory, copied from one that was initialised (PGlite's initdb takes seconds, tens of
 * them on a loaded machine) and, unless `migrated: false`, migrated: once per PGlite version and set of
 * migrations, by the first test worker that needs it. For tests that need an embedded database whatever the
 * mode under test (moving its data into Postgres); others use `createTestDatabase()`.
 *
 * @example
 * const [from, to] = await Promise.all([createEmbeddedTestDatabase(), createPostgresTestDatabase()]);
 */
export async function createEmbeddedTestDatabase(
  options: TestDatabaseOptions = {},
): Promise<EmbeddedTestDatabase> {
  const template = await embeddedTemplate(options.migrated !== false);
  const name = `${TEST_DATABASE_PREFIX}${process.pid}_${randomBytes(4).toString('hex')}`;
  const dataDir = join(EMBEDDED_ROOT, name);
  await cp(template, dataDir, { recursive: true });
  const open = (openOptions?: OpenDatabaseOptions) => openDatabase({ dataDir }, openOptions);
  return {
    mode: 'embedded',
    name,
    dataDir,
    env: { DATABASE_URL: '', FUSEBOX_DATA_DIR: dataDir },
    open,
    inspect: (fn) => inspect(open, fn),
    async connectSql() {
      const db = await openEmbeddedDatabase(dataDir);
      return { ...db.sql, close: () => db.close() };
    },
    reader: () => createHeldPrismaClient(dataDir),
    drop: () => rm(dataDir, { recursive: true, force: true }),
  };
}

async function embeddedTemplate(migrated: boolean): Promise<string> {
  const version = await pgliteVersion();
  await mkdir(EMBEDDED_ROOT, { recursive: true });
  const release = await lockTemplates();
  try {
    const empty = await buildTemplate(`tpl_${version}_empty`, async (dir) => {
      await (await openEmbeddedDatabase(dir)).close();
    });
    if (!migrated) return empty;
    const migrations = await readMigrations();
    const fingerprint = migrationsFingerprint(migrations).slice(0, 16);
    return await buildTemplate(`tpl_${version}_${fingerprint}`, async (dir) => {
      await cp(empty, dir, { recursive: true });
      const db = await openEmbeddedDatabase(dir);
      try {
        await migrate(db.sql, { migrations, lock: false });
      } finally {
        await db.close();
      }
    });
  } finally {
    await release();
  }
}

/** Builds a template beside its final name and renames it into place, so a half-built one is never used. */
async function buildTemplate(name: string, build: (dir: string) => Promise<void>): Promise<string> {
  const template = join(EMBEDDED_ROOT, name);
  if (existsSync(template)) return template;
  const building = `${template}.building`;
  await rm(building, { recursive: true, force: true });
  await build(building);
  await rename(building, template);
  return template;
}

/** Takes the templates' lock, waiting while another test worker builds one. */
async function lockTemplates(): Promise<() => Promise<void>> {
  for (;;) {
    try {
      return await lockDataDir(EMBEDDED_ROOT);
    } catch (error) {
      if (!(error instanceof EmbeddedDatabaseError)) throw error;
      await sleep(200);
    }
  }
}

/** Templates are per PGlite version: a data directory belongs to the Postgres build that created it. */
async function pgliteVersion(): Promise<string> {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const manifest = JSON.parse(await readFile(join(dirname(entry), '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}

function testDatabaseMode(value: string | undefined): DatabaseMode {
  if (value === undefined || value === '' || value === 'postgres') return 'postgres';
  if (value === 'embedded') return 'embedded';
  throw new TypeError(
    `FUSEBOX_TEST_DATABASE_MODE must be 'postgres' or 'embedded', got ${JSON.stringify(value)}`,
  );
}

async function inspect<T>(
  open: () => Promise<Database>,
  fn: (prisma: PrismaClient) => Promise<T>,
): Promise<T> {
  const database = await open();
  try {
    return await fn(database.prisma);
  } finally {
    await database.close();
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
