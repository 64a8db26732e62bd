import { resolve } from 'node:path';
import { type PrismaClient, createPrismaClient } from './client';
import { redactDatabaseUrl } from './database-url';
import { type EmbeddedDatabase, openEmbeddedDatabase } from './embedded';
import { ensureDatabase } from './ensure-database';
import { type MigrateResult, migrate } from './migrate';
import { type SqlClient, type SqlTransaction, connectPostgres, pgSqlClient } from './sql-client';

/** Which database Fusebox uses: a Postgres server (`url`), or the embedded PGlite in a data directory. */
export type DatabaseTarget = { url: string } | { dataDir: string };

export type DatabaseMode = 'postgres' | 'embedded';

/** A database opened by `openDatabase`, whichever its mode: Prisma for the application, SQL for the rest. */
export interface Database {
  mode: DatabaseMode;
  /** Where the data lives, safe to print: the URL without its password, or the absolute data directory. */
  location: string;
  prisma: PrismaClient;
  /**
   * A SQL session for what Prisma cannot do (COPY, cursors). On Postgres it is a connection of its own, opened on
   * first use; embedded, it is the database's one session, shared with Prisma.
   */
  sql: SqlClient;
  /**
   * Postgres only: opens another SQL session, for work that runs several at once (a rollout import's files); the
   * caller closes it. The embedded database has one session, so it has none.
   */
  openSql?: () => Promise<SqlClient>;
  /** What opening it migrated. */
  migrations: MigrateResult;
  /** Embedded only: read-only queries for clients that read through this process (EmbeddedDatabase). */
  readOnlyQuery?: EmbeddedDatabase['readOnlyQuery'];
  /** Closes Prisma and the SQL session, and releases an embedded data directory. */
  close(): Promise<void>;
}

export interface DatabaseLog {
  info(message: string): void;
  warn(message: string): void;
}

export interface OpenDatabaseOptions {
  log?: DatabaseLog;
  /** Prisma's pool size on Postgres (default 10); an embedded database has one session whatever this says. */
  maxConnections?: number;
  /**
   * Postgres only: longest a statement of Prisma's may run, and (a second more) wait for its answer, before it
   * fails (default 5 s). The embedded database runs in this process and cannot freeze apart from it.
   */
  statementTimeoutMs?: number;
}

/** The mode and printable location of a target, without opening it. */
export function describeTarget(target: DatabaseTarget): { mode: DatabaseMode; location: string } {
  return 'url' in target
    ? { mode: 'postgres', location: redactDatabaseUrl(target.url) }
    : { mode: 'embedded', location: resolve(target.dataDir) };
}

/**
 * Opens Fusebox's database and makes it ready: on Postgres it creates the database if the server has none by that
 * name; in either mode it applies pending migrations with the offline runner. Throws DatabaseUnreachableError
 * when Postgres does not answer, EmbeddedDatabaseError when the data directory is locked or unusable.
 *
 * @example
 * const db = await openDatabase({ dataDir: '.fusebox' });
 * console.log(db.mode, db.location, await db.prisma.task.count());
 * await db.close();
 */
export async function openDatabase(
  target: DatabaseTarget,
  options: OpenDatabaseOptions = {},
): Promise<Database> {
  const log = options.log ?? { info: () => {}, warn: () => {} };
  const { mode, location } = describeTarget(target);
  const onApplied = (name: string) => log.info(`applied migration ${name}`);
  let database: Omit<Database, 'migrations'>;
  let migrations: MigrateResult;
  if ('url' in target) {
    if (await ensureDatabase(target.url)) log.info(`created database ${location}`);
    const openSql = async () => pgSqlClient(await connectPostgres(target.url));
    const sql = await openSql();
    try {
      migrations = await migrate(sql, { onApplied });
    } finally {
      await sql.close();
    }
    const prisma = createPrismaClient(target.url, {
      maxConnections: options.maxConnections ?? 10,
      ...(options.statementTimeoutMs === undefined ? {} : { statementTimeoutMs: options.statementTimeoutMs }),
    });
    const lazy = lazySqlClient(openSql);
    database = {
      mode,
      location,
      prisma,
      sql: lazy,
      openSql,
      async close() {
        await Promise.allSettled([prisma.$disconnect(), lazy.close()]);
      },
    };
  } else {
    const embedded = await openEmbeddedDatabase(target.dataDir);
    try {
      // PGlite is one session: advisory locks there exclude nobody, and no other process can reach it anyway.
      migrations = await migrate(embedded.sql, { onApplied, lock: false });
    } catch (error) {
      await embedded.close();
      throw error;
    }
    database = {
      mode,
      location,
      prisma: embedded.prisma,
      sql: embedded.sql,
      readOnlyQuery: embedded.readOnlyQuery,
      close: () => embedded.close(),
    };
  }
  if (migrations.unknown.length > 0) {
    log.warn(`the database has migrations this version does not know: ${migrations.unknown.join(', ')}`);
  }
  return { ...database, migrations };
}

/** A SqlClient that connects on first use, and again after a failed attempt. */
function lazySqlClient(connect: () => Promise<SqlClient>): SqlClient {
  let client: Promise<SqlClient> | undefined;
  const get = () =>
    (client ??= connect().catch((error: unknown) => {
      client = undefined;
      throw error;
    }));
  return {
    async query<Row extends Record<string, unknown>>(sql: string, params?: unknown[]) {
      return (await get()).query<Row>(sql, params);
    },
    async exec(sql: string) {
      await (await get()).exec(sql);
    },
    async transaction<T>(fn: (tx: SqlTransaction) => Promise<T>) {
      return (await get()).transaction(fn);
    },
    async close() {
      const opened = client;
      client = undefined;
      if (opened) await (await opened).close();
    },
  };
}
