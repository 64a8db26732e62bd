import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NO_DATABASE_SERVER_ENV, type RunningServer, startServer } from '@fusebox/api/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemoCli } from './demo-process';

// `npm start` then `npm run demo` on a machine with no Postgres: the server holds the embedded data directory
// (.fusebox in the working directory), so the demo imports and reads through it.
const ENV = NO_DATABASE_SERVER_ENV;
/** A first start creates and migrates the embedded database: tens of seconds on a loaded machine. */
const START_TIMEOUT_MS = 180_000;

describe('the demo against a server in embedded mode', () => {
  let cwd: string;
  let server: RunningServer;

  beforeAll(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'fusebox-embedded-demo-'));
    server = await startServer(ENV, ['--no-dashboard'], START_TIMEOUT_MS, { cwd });
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await server?.stop();
    if (cwd) await rm(cwd, { recursive: true, force: true });
  });

  it('runs the demo against it, importing and reading through it', async () => {
    const out = join(cwd, 'demo-dumps');
    const demo = await runDemoCli(
      ['--api-url', server.url, '--episodes', '2', '--steps', '1', '--out', out],
      ENV,
      { cwd },
    );
    expect(demo.stderr).not.toContain('unexpected error');
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).toContain('2 samples imported into run "demo-dumps"');
    expect(demo.stdout).toMatch(/server: \d+ executions recorded during the demo/);
  });
});
