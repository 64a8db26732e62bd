import {
  type Database,
  type DatabaseLog,
  type DatabaseTarget,
  openDatabase as open,
} from '@fusebox/db/database';
import type { Env } from './env';

/** DATABASE_URL set: that Postgres; unset: the embedded database in FUSEBOX_DATA_DIR. */
export function databaseTarget(env: Pick<Env, 'DATABASE_URL' | 'FUSEBOX_DATA_DIR'>): DatabaseTarget {
  return env.DATABASE_URL ? { url: env.DATABASE_URL } : { dataDir: env.FUSEBOX_DATA_DIR };
}

/** Start-up lines on the console, for commands that have no logger of their own. */
export const consoleDatabaseLog: DatabaseLog = {
  info: (line) => console.log(line),
  warn: (line) => console.warn(`warning: ${line}`),
};

/**
 * Opens the database the environment names and makes it ready (created if missing, migrated). Throws
 * DatabaseUnreachableError when Postgres does not answer, EmbeddedDatabaseError when the data directory is
 * locked by another process or unusable.
 */
export function openDatabase(
  env: Pick<Env, 'DATABASE_URL' | 'FUSEBOX_DATA_DIR' | 'FUSEBOX_DB_STATEMENT_TIMEOUT_MS'>,
  log: DatabaseLog,
  options: { maxConnections?: number } = {},
): Promise<Database> {
  return open(databaseTarget(env), {
    log,
    statementTimeoutMs: env.FUSEBOX_DB_STATEMENT_TIMEOUT_MS,
    ...options,
  });
}
