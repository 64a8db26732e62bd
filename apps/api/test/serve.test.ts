import { pathToFileURL } from 'node:url';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServer } from './serve-process';

describe('fusebox serve', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase({ migrated: false });
  });
  afterAll(() => database?.drop());

  it('migrates a fresh database, answers ping and health, and stops cleanly on SIGTERM', async () => {
    const server = await startServer({ ...database.env });
    try {
      const ping = await fetch(`${server.url}/v1/ping`);
      expect(ping.status).toBe(200);
      expect(await ping.text()).toBe('"pong"');

      const health = await fetch(`${server.url}/health`);
      expect(health.status).toBe(200);
      const body = (await health.json()) as {
        status: string;
        version: string;
        database: { status: string; mode: string; url: string };
      };
      expect(body.status).toBe('ok');
      expect(body.version).toMatch(/^\d+\.\d+\.\d+/);
      expect(body.database).toMatchObject({
        status: 'ok',
        mode: database.mode,
        url: database.mode === 'postgres' ? database.url : pathToFileURL(database.dataDir).href,
      });

      const trpc = await fetch(`${server.url}/trpc/health.get`);
      expect(((await trpc.json()) as { result: { data: { status: string } } }).result.data.status).toBe('ok');
    } finally {
      expect(await server.stop('SIGTERM')).toBe(0);
    }
    expect(server.output()).toContain('applied migration');
    expect(server.output()).toContain('SIGTERM received, stopping');
  });

  it('starts again on the migrated database without migrating, and stops on SIGINT', async () => {
    const server = await startServer({ ...database.env });
    expect(server.output()).not.toContain('applied migration');
    expect(await server.stop('SIGINT')).toBe(0);
  });

  it('db migrate is a no-op on an up-to-date database', async () => {
    const result = await runCli(['db', 'migrate'], { ...database.env });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/0 applied, \d+ already applied/);
  });
});
