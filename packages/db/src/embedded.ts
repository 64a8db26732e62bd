import { existsSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { lockDataDir } from './data-dir-lock';
import { EmbeddedDatabaseError } from './errors/embedded-database-error';
import { PrismaClient } from './generated/prisma/client';
import type { SqlClient } from './sql-client';

export interface EmbeddedDatabase {
  /** The absolute data directory. */
  dataDir: string;
  pglite: PGlite;
  sql: SqlClient;
  prisma: PrismaClient;
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
    const sql: SqlClient = {
      async query<Row extends Record<string, unknown>>(text: string, params?: unknown[]) {
        const result = await pglite.query<Row>(text, params);
        return { rows: result.rows };
      },
      async exec(text: string) {
        await pglite.exec(text);
      },
      close: () => pglite.close(),
    };
    const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite) });
    return {
      dataDir: dir,
      pglite,
      sql,
      prisma,
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
