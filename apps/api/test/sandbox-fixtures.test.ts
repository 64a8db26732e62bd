import { readContractFixtures } from '@fusebox/testing/contract-fixtures';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from './serve-process';

/** Every recorded case, its answer's bytes trimmed as the server's are compared. */
const fixtures = readContractFixtures().map((fixture) => ({
  ...fixture,
  response: fixture.responseText.trim(),
}));

/**
 * What may differ between two runs of the same request: execution times, temporary paths, and the jupyter
 * driver block (the real server's own logs). Everything else, field order included, must be identical.
 */
function normalise(text: string): string {
  const value = JSON.parse(
    text
      .replace(/"execution_time":[-+.\deE]+/g, '"execution_time":0')
      .replace(/\/tmp\/tmp[a-z0-9_]{8}\/tmp[a-z0-9_]{8}/g, '<tmp>'),
  ) as unknown;
  if (value !== null && typeof value === 'object' && 'driver' in value && 'cells' in value) {
    const jupyter = value as { driver: unknown; cells: { error: { traceback: string[] }[] }[] };
    jupyter.driver = null;
    // eslint-disable-next-line no-control-regex
    const plain = (line: string) => line.replace(/\x1b\[[0-9;]*m/g, '');
    for (const cell of jupyter.cells)
      for (const error of cell.error) error.traceback = error.traceback.map(plain);
  }
  return JSON.stringify(value);
}

describe('SandboxFusion contract fixtures, replayed against fusebox serve', () => {
  let database: TestDatabase;
  let server: RunningServer;
  beforeAll(async () => {
    database = await createTestDatabase();
    server = await startServer({ ...database.env, FUSEBOX_EXECUTOR_CONCURRENCY: '2' });
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('has fixtures to replay', () => {
    expect(fixtures.map((fixture) => fixture.name)).toContain('python_hello');
  });

  it.each(fixtures)('$name', async (fixture) => {
    const response = await fetch(`${server.url}${fixture.path}`, {
      method: fixture.method,
      ...(fixture.body === undefined
        ? {}
        : { body: JSON.stringify(fixture.body), headers: { 'content-type': 'application/json' } }),
    });
    expect(response.status).toBe(fixture.status);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(normalise(await response.text())).toBe(normalise(fixture.response));
  });
});
