import type { Database } from '@fusebox/db/database';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEnv } from '../src/env';
import { buildServer } from '../src/server';

describe('FUSEBOX_API_TOKEN', () => {
  let database: TestDatabase;
  let opened: Database;
  const servers: FastifyInstance[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    opened = await database.open();
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    await opened?.close();
    await database?.drop();
  });

  async function server(token?: string) {
    const env = readEnv({ ...database.env, ...(token ? { FUSEBOX_API_TOKEN: token } : {}) });
    const app = await buildServer({ env, prisma: opened.prisma, startedAt: new Date() }, { logger: false });
    servers.push(app);
    return app;
  }

  it('guards every route but /v1/ping when set', async () => {
    const app = await server('s3cret');
    expect((await app.inject({ url: '/v1/ping' })).statusCode).toBe(200);

    const bare = await app.inject({ url: '/health' });
    expect(bare.statusCode).toBe(401);
    expect(bare.json()).toEqual({ detail: 'missing bearer token' });
    expect(bare.headers['www-authenticate']).toBe('Bearer');

    const wrong = await app.inject({ url: '/trpc/health.get', headers: { authorization: 'Bearer nope' } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ detail: 'invalid bearer token' });

    const unknownRoute = await app.inject({ url: '/no/such/route' });
    expect(unknownRoute.statusCode).toBe(401);

    const right = await app.inject({ url: '/health', headers: { authorization: 'Bearer s3cret' } });
    expect(right.statusCode).toBe(200);
    const trpc = await app.inject({ url: '/trpc/health.get', headers: { authorization: 'bearer s3cret' } });
    expect(trpc.statusCode).toBe(200);
  });

  it('leaves every route open when unset', async () => {
    const app = await server();
    expect((await app.inject({ url: '/health' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/trpc/health.get' })).statusCode).toBe(200);
  });
});
