import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './serve-process';

// Its own temporary directory, so the executor's runtime directories seen here are this server's alone; passable
// (0711), as sandbox uids go through it to their /tmp.
const privateTmp = mkdtempSync(join(tmpdir(), 'fusebox-half-open-'));
chmodSync(privateTmp, 0o711);
afterAll(() => rmSync(privateTmp, { recursive: true, force: true }));

const runtimeDirs = () => readdirSync(privateTmp).filter((name) => name.startsWith('fusebox-sandbox-'));

/**
 * serve sets up the executor (its spawner, runtime directory and probe sandbox) while the database opens: when the
 * database fails, nothing of the executor may outlive the failed start.
 */
describe('serve whose database cannot open', () => {
  it(
    'closes the executor it started meanwhile: no runtime directory is left',
    { timeout: 120_000 },
    async () => {
      let seen = false;
      const watch = setInterval(() => (seen ||= runtimeDirs().length > 0), 10);
      const result = await runCli(['serve', '--no-dashboard'], {
        DATABASE_URL: 'postgresql://postgres@127.0.0.1:9/fusebox',
        TMPDIR: privateTmp,
      }).finally(() => clearInterval(watch));
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain('cannot reach Postgres');
      // Control: the executor did start alongside (its runtime directory appeared), so its absence now means closed.
      expect(seen).toBe(true);
      expect(runtimeDirs()).toEqual([]);
    },
  );
});
