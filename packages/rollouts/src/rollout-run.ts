import { basename, resolve } from 'node:path';
import type { SqlClient } from '@fusebox/db/sql-client';
import { RolloutImportError } from './rollout-import-error';
import { uuidV7 } from './uuid-v7';

export interface RunRef {
  id: string;
  name: string;
}

/**
 * The run a dump directory imports into, created on first import. It is named after the directory unless a
 * name is given; a name already used by another directory is refused rather than mixing two trainings.
 */
export async function ensureRun(client: SqlClient, dir: string, name?: string): Promise<RunRef> {
  const sourceDir = resolve(dir);
  const runName = name ?? basename(sourceDir);
  await client.query(
    `INSERT INTO "rollout_run" ("id", "name", "source_dir", "updated_at") VALUES ($1, $2, $3, now())
     ON CONFLICT ("name") DO NOTHING`,
    [uuidV7(), runName, sourceDir],
  );
  const { rows } = await client.query<{ id: string; source_dir: string }>(
    'SELECT "id", "source_dir" FROM "rollout_run" WHERE "name" = $1',
    [runName],
  );
  const run = rows[0];
  if (!run)
    throw new RolloutImportError(`the run "${runName}" vanished while it was being created; try again`);
  if (run.source_dir !== sourceDir) {
    throw new RolloutImportError(
      `a run named "${runName}" already imports from ${run.source_dir}; pass --name to import ${sourceDir} as another run`,
    );
  }
  return { id: run.id, name: runName };
}
