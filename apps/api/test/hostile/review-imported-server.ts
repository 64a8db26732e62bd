import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll } from 'vitest';
import { runCli } from '../serve-process';
import { type HostileServer, startHostileServer } from './hostile-server';

/** What `fusebox <kind> import` reads before the server starts: JSON lines. */
export interface Import {
  kind: 'tasks' | 'corpus';
  rows: unknown[];
}

/**
 * One hostile `fusebox serve` for a test file, on a database where `imports` were imported (in order) before
 * it started; the server, once started.
 */
export function useImportedServer(imports: readonly Import[]): () => HostileServer {
  let h: HostileServer | undefined;
  let database: TestDatabase | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    dir = mkdtempSync(join(tmpdir(), 'fusebox-review-import-'));
    for (const [index, { kind, rows }] of imports.entries()) {
      const file = join(dir, `${kind}-${index}.jsonl`);
      writeFileSync(file, rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
      const imported = await runCli([kind, 'import', file], database.env);
      if (imported.code !== 0) throw new Error(`${kind} import failed: ${imported.stdout}${imported.stderr}`);
    }
    // The harness's own database goes unused: the server reads this one, with the imports in it.
    h = await startHostileServer(database.env);
  }, 180_000);
  afterAll(async () => {
    await h?.stop();
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    if (!h) throw new Error('the hostile server did not start');
    return h;
  };
}
