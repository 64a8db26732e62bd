import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's prisma/migrations folder. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../../prisma/migrations', import.meta.url));

export interface MigrationFile {
  /** The folder name, `<timestamp>_<name>`, which is also the `migration_name` Prisma records. */
  name: string;
  sql: string;
  /** SHA-256 of the file's bytes in lowercase hex: the checksum `prisma migrate deploy` records. */
  checksum: string;
}

/** Reads every `<folder>/migration.sql` under `dir`, in the order Prisma applies them (by folder name). */
export async function readMigrations(dir: string = MIGRATIONS_DIR): Promise<MigrationFile[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const folders = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return Promise.all(
    folders.map(async (name) => {
      const bytes = await readFile(join(dir, name, 'migration.sql'));
      return {
        name,
        sql: bytes.toString('utf8'),
        checksum: createHash('sha256').update(bytes).digest('hex'),
      };
    }),
  );
}

/** One hash over every migration: databases migrated from the same files share it. */
export function migrationsFingerprint(migrations: MigrationFile[]): string {
  const hash = createHash('sha256');
  for (const migration of migrations) hash.update(`${migration.name}:${migration.checksum}\n`);
  return hash.digest('hex');
}
