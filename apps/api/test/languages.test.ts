import type { Database } from '@fusebox/db/database';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import type { Executor } from '@fusebox/local-sandbox/executor';
import { LANGUAGES } from '@fusebox/sandbox-client/protocol';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEnv } from '../src/env';
import { languagesResponseSchema } from '../src/routes/languages';
import { createServerExecutor } from '../src/sandbox-executor';
import { buildServer } from '../src/server';

describe('GET /v1/languages', () => {
  let database: TestDatabase;
  let opened: Database;
  let executor: Executor;
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    opened = await database.open();
    const env = readEnv({ ...database.env, FUSEBOX_EXECUTOR_CONCURRENCY: '1' });
    executor = await createServerExecutor(env);
    app = await buildServer(
      { env, prisma: opened.prisma, startedAt: new Date(), executor },
      { logger: false },
    );
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await app?.close();
    await executor?.close();
    await opened?.close();
    await database?.drop();
  });

  it('lists every language with its version, and each unavailable one answers /run_code with its reason', async () => {
    const response = await fetch(`${base}/v1/languages`);
    expect(response.status).toBe(200);
    const { languages } = languagesResponseSchema.parse(await response.json());
    expect(languages.map((entry) => entry.language)).toEqual([...LANGUAGES]);
    const bash = languages.find((entry) => entry.language === 'bash');
    expect(bash?.available).toBe(true);
    expect(bash?.version).toContain('GNU bash');
    const julia = languages.find((entry) => entry.language === 'julia');
    expect(julia).toMatchObject({ available: false, version: null });

    const run = await fetch(`${base}/run_code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: 'println(1)', language: 'julia' }),
    });
    // As SandboxFusion answers its own sandbox errors: HTTP 200, status SandboxError, the reason in `message`.
    expect(run.status).toBe(200);
    expect(await run.json()).toMatchObject({
      status: 'SandboxError',
      message: julia?.reason,
      run_result: null,
    });
  });
});
