import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUSEBOX_BIN, startServer } from './serve-process';

/** Children still running when the file ends (a timed-out test): killed, so none holds the data directory. */
const children = new Set<ChildProcess>();

/**
 * Runs `fusebox serve` where no namespace can be created: inside a bubblewrap sandbox that forbids creating
 * user namespaces, as on a host without them.
 */
async function serveWithoutNamespaces(env: Record<string, string>) {
  const child = spawn(
    'bwrap',
    [
      '--dev-bind',
      '/',
      '/',
      '--unshare-user',
      '--disable-userns',
      // Killing bubblewrap (a timed-out test) must take fusebox serve with it.
      '--die-with-parent',
      '--',
      process.execPath,
      FUSEBOX_BIN,
      'serve',
      '--no-dashboard',
    ],
    {
      env: { ...process.env, PORT: '0', FUSEBOX_LOG_FORMAT: 'json', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.add(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  children.delete(child);
  return { code, output };
}

// Embedded, opening the database alone can take tens of seconds on a loaded machine.
describe('fusebox serve without working isolation', { timeout: 120_000 }, () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await database?.drop();
  });

  it('refuses to start, saying why and how to run without isolation', async () => {
    const { code, output } = await serveWithoutNamespaces({ ...database.env });
    expect(code).toBe(1);
    expect(output).toContain('bubblewrap cannot create a sandbox here');
    // bubblewrap's own words on why, not an echo of the plumbing.
    expect(output).toMatch(/cannot run isolated: bwrap: .*namespace/);
    expect(output).toContain('FUSEBOX_EXECUTOR_ISOLATION=none');
    expect(output).not.toContain('API listening');
  });

  it('starts with a loud warning when isolation is turned off explicitly, and runs code', async () => {
    const server = await startServer({ ...database.env, FUSEBOX_EXECUTOR_ISOLATION: 'none' });
    try {
      expect(server.output()).toContain('WARNING: ISOLATION IS OFF');
      const response = await fetch(`${server.url}/run_code`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code: 'print(6 * 7)', language: 'python' }),
      });
      expect(await response.json()).toMatchObject({ status: 'Success', run_result: { stdout: '42\n' } });
    } finally {
      await server.stop();
    }
  });
});
