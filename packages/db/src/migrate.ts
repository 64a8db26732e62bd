import { randomUUID } from 'node:crypto';
import { MigrationError } from './errors/migration-error';
import { type MigrationFile, readMigrations } from './migrations';
import type { SqlClient } from './sql-client';

/**
 * The advisory lock `prisma migrate` takes, so this runner and Prisma's never migrate one database at once.
 */
const PRISMA_MIGRATION_LOCK = 72707369;

/** Prisma's own DDL for its bookkeeping table, column for column. */
const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

interface AppliedRow extends Record<string, unknown> {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

export interface MigrateResult {
  /** Migrations applied by this call, in order. */
  applied: string[];
  /** Migrations that were already applied. */
  alreadyApplied: number;
  /** Migrations the database records but this checkout does not have (a newer checkout migrated it). */
  unknown: string[];
}

export interface MigrateOptions {
  migrations?: MigrationFile[];
  onApplied?: (name: string) => void;
  /** Whether the database supports advisory locks across sessions (an embedded one has a single session). */
  lock?: boolean;
}

/**
 * Applies pending migrations the way `prisma migrate deploy` would, without Prisma's native engine: each in its
 * own transaction, recorded in `_prisma_migrations` with Prisma's checksum, so a machine with Prisma sees them as
 * applied. A second run is a no-op. A migration edited after it was applied, or left failed by an earlier run,
 * is refused with a MigrationError.
 *
 * @example
 * const result = await migrate(pgSqlClient(await connectPostgres(url)));
 * console.log(result.applied);
 */
export async function migrate(sql: SqlClient, options: MigrateOptions = {}): Promise<MigrateResult> {
  const migrations = options.migrations ?? (await readMigrations());
  const lock = options.lock ?? true;
  if (lock) await sql.query('SELECT pg_advisory_lock($1)', [PRISMA_MIGRATION_LOCK]);
  try {
    await sql.exec(CREATE_MIGRATIONS_TABLE);
    const { rows } = await sql.query<AppliedRow>(
      'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at',
    );
    const result: MigrateResult = { applied: [], alreadyApplied: 0, unknown: [] };
    const local = new Set(migrations.map((migration) => migration.name));
    result.unknown = [...new Set(rows.map((row) => row.migration_name))].filter((name) => !local.has(name));

    for (const migration of migrations) {
      const attempts = rows.filter((row) => row.migration_name === migration.name && !row.rolled_back_at);
      const finished = attempts.find((row) => row.finished_at);
      if (finished) {
        if (finished.checksum !== migration.checksum) {
          throw new MigrationError(
            migration.name,
            `migration ${migration.name} was edited after it was applied: the database recorded checksum ` +
              `${finished.checksum}, the file now has ${migration.checksum}. Restore the file and put the ` +
              `change in a new migration.`,
          );
        }
        result.alreadyApplied += 1;
        continue;
      }
      if (attempts.length > 0) {
        throw new MigrationError(
          migration.name,
          `migration ${migration.name} failed in an earlier run and is marked unfinished in _prisma_migrations; ` +
            `fix the database by hand, then delete that row (or mark it rolled back) and migrate again.`,
        );
      }
      await applyOne(sql, migration);
      result.applied.push(migration.name);
      options.onApplied?.(migration.name);
    }
    return result;
  } finally {
    if (lock) await sql.query('SELECT pg_advisory_unlock($1)', [PRISMA_MIGRATION_LOCK]).catch(() => {});
  }
}

async function applyOne(sql: SqlClient, migration: MigrationFile): Promise<void> {
  const startedAt = new Date();
  try {
    await sql.transaction(async (tx) => {
      await tx.exec(migration.sql);
      await tx.query(
        `INSERT INTO "_prisma_migrations"
           (id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count)
         VALUES ($1, $2, now(), $3, NULL, NULL, $4, 1)`,
        [randomUUID(), migration.checksum, migration.name, startedAt],
      );
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new MigrationError(
      migration.name,
      `migration ${migration.name} failed and was rolled back: ${reason}`,
      {
        cause: error,
      },
    );
  }
}
