import { createPrismaClient } from '@fusebox/db/client';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEnv } from '../src/env';
import { buildServer } from '../src/server';
import type { Services } from '../src/services';
import { createCaller } from '@fusebox/api-router';
import { trpcContext } from '../src/trpc-context';
import { openTestServices } from './router-context';

describe('health', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());

  it('reports ok with the database latency over tRPC', async () => {
    const { services, close } = await openTestServices(database);
    const health = await createCaller(trpcContext(services)).health.get();
    expect(health.status).toBe('ok');
    expect(health.database.status).toBe('ok');
    expect(health.database.mode).toBe(database.mode);
    expect(health.database.latencyMs).toBeGreaterThanOrEqual(0);
    await close();
  });

  // A server that cannot reach its database: Postgres down, whatever the mode under test.
  it('answers 503 and names the problem when the database is down', async () => {
    const url = 'postgresql://postgres@127.0.0.1:9/fusebox';
    const ctx: Services = {
      env: readEnv({ DATABASE_URL: url }),
      prisma: createPrismaClient(url),
      startedAt: new Date(),
    };
    const app = await buildServer(ctx, { logger: false });
    const response = await app.inject({ method: 'GET', url: '/health' });
    expect(response.statusCode).toBe(503);
    const body = response.json<{ status: string; database: { status: string; error: string } }>();
    expect(body.status).toBe('degraded');
    expect(body.database.status).toBe('error');
    expect(body.database.error.length).toBeGreaterThan(0);
    await app.close();
  });
});
