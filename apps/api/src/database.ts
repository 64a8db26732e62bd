import { type PrismaClient, createPrismaClient } from '@fusebox/db/client';
import { redactDatabaseUrl } from '@fusebox/db/database-url';
import { ensureDatabase } from '@fusebox/db/ensure-database';
import { type MigrateResult, migrate } from '@fusebox/db/migrate';
import { connectPostgres, pgSqlClient } from '@fusebox/db/sql-client';

export interface DatabaseLog {
  info(message: string): void;
  warn(message: string): void;
}

/**
 * Makes the database ready: creates it if the server has none by that name and applies pending migrations.
 * Throws DatabaseUnreachableError (naming the URL and how to start Postgres) when the server does not answer.
 */
export async function prepareDatabase(url: string, log: DatabaseLog): Promise<MigrateResult> {
  if (await ensureDatabase(url)) log.info(`created database ${redactDatabaseUrl(url)}`);
  const sql = pgSqlClient(await connectPostgres(url));
  try {
    const result = await migrate(sql, { onApplied: (name) => log.info(`applied migration ${name}`) });
    if (result.unknown.length > 0) {
      log.warn(`the database has migrations this version does not know: ${result.unknown.join(', ')}`);
    }
    return result;
  } finally {
    await sql.close();
  }
}

/** Prepares the database, then opens the Prisma client the server uses. */
export async function openDatabase(url: string, log: DatabaseLog): Promise<PrismaClient> {
  await prepareDatabase(url, log);
  return createPrismaClient(url);
}
