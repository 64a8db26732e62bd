import { existsSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { SqlQuery, SqlResultSet } from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { lockDataDir } from './data-dir-lock';
import { EmbeddedDatabaseError } from './errors/embedded-database-error';
import { PrismaClient } from './generated/prisma/client';
import { pgliteSqlClient } from './pglite-sql-client';
import type { SqlClient } from './sql-client';
import { transactionOptions } from './transaction-options';

/** How long a transaction waits for PGlite's one lock, which another transaction may hold. */
const EMBEDDED_TRANSACTION_WAIT_MS = 10_000;

export interface EmbeddedDatabase {
  /** The absolute data directory. */
  dataDir: string;
  pglite: PGlite;
  /** The database's one session, for migrations, imports and exports; closed by `close()`. */
  sql: SqlClient;
  prisma: PrismaClient;
  /**
   * Runs one of Prisma's raw queries inside a read-only transaction, answering as a Prisma driver adapter does:
   * what a server holding the directory runs for clients reading through it (createHeldPrismaClient).
   */
  readOnlyQuery: (query: SqlQuery) => Promise<SqlResultSet>;
  /** Closes Prisma and PGlite and releases the data directory. */
  close(): Promise<void>;
}

/**
 * Opens (creating it on first use) the embedded Postgres, PGlite, that Fusebox uses when DATABASE_URL is unset.
 * The directory is locked to this process; a second process, a directory that holds something else, or one that
 * cannot be read fails with an EmbeddedDatabaseError naming the path.
 *
 * @example
 * const db = await openEmbeddedDatabase('.fusebox');
 * await db.prisma.execution.count();
 * await db.close();
 */
export async function openEmbeddedDatabase(dataDir: string): Promise<EmbeddedDatabase> {
  const dir = resolve(dataDir);
  const pgdata = join(dir, 'pgdata');
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw unusable(dir, `cannot create it (${(error as Error).message})`, error);
  }
  const release = await lockDataDir(dir).catch((error: unknown) => {
    if (error instanceof EmbeddedDatabaseError) throw error;
    throw unusable(dir, `cannot write its lock file (${(error as Error).message})`, error);
  });
  try {
    await checkPgdata(dir, pgdata);
    let pglite: PGlite;
    try {
      pglite = await PGlite.create(pgdata);
    } catch (error) {
      throw unusable(dir, `PGlite could not open it (${(error as Error).message})`, error);
    }
    const sql = pgliteSqlClient(pglite);
    const prisma = new PrismaClient({
      adapter: new PrismaPGlite(yieldingBetweenQueries(pglite)),
      transactionOptions: transactionOptions(EMBEDDED_TRANSACTION_WAIT_MS),
    });
    return {
      dataDir: dir,
      pglite,
      sql,
      prisma,
      readOnlyQuery: (query) =>
        pglite.transaction(async (tx) => {
          await tx.exec('SET TRANSACTION READ ONLY');
          // The adapter only calls `query` on its client, which a transaction has too.
          const adapter = await new PrismaPGlite(tx as unknown as PGlite).connect();
          return adapter.queryRaw(query);
        }),
      async close() {
        await prisma.$disconnect();
        await pglite.close();
        await release();
      },
    };
  } catch (error) {
    await release();
    throw error;
  }
}

/**
 * PGlite runs each query synchronously on this thread and resolves at once, so a request's run of queries (a
 * session's reward, a page of rows) chains through microtasks and holds the event loop until the last one: 300 ms
 * seen here, with /v1/ping waiting behind it. Yielding to the loop before each query bounds a stall by one query.
 * Not inside a transaction: it holds PGlite's one lock, and every turn it yields would keep all others waiting
 * longer (and bring a long batch nearer Prisma's transaction timeout). The adapter only calls `query`, `exec`
 * and `transaction` on its client.
 */
function yieldingBetweenQueries(client: PGlite): PGlite {
  const query = async (...args: Parameters<PGlite['query']>) => {
    await new Promise((resolve) => setImmediate(resolve));
    return client.query(...args);
  };
  return new Proxy(client, {
    get(target, property) {
      if (property === 'query') return query;
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** A pgdata directory that exists but is not a Postgres cluster would otherwise fail deep inside PGlite. */
async function checkPgdata(dir: string, pgdata: string): Promise<void> {
  if (!existsSync(pgdata)) return;
  let entries: string[];
  try {
    entries = await readdir(pgdata);
  } catch (error) {
    throw unusable(dir, `cannot read ${pgdata} (${(error as Error).message})`, error);
  }
  if (entries.length > 0 && !entries.includes('PG_VERSION')) {
    throw unusable(dir, `${pgdata} is not an embedded Postgres data directory (it has no PG_VERSION)`);
  }
}

function unusable(dir: string, reason: string, cause?: unknown): EmbeddedDatabaseError {
  return new EmbeddedDatabaseError(
    'FUSEBOX_DB_DATA_DIR_UNUSABLE',
    dir,
    `the data directory ${dir} is unusable: ${reason}. Move it aside to start afresh, or point FUSEBOX_DATA_DIR elsewhere.`,
    cause === undefined ? undefined : { cause },
  );
}
