import type { Database } from '@fusebox/db/database';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import type { Executor } from '@fusebox/local-sandbox/executor';
import { runCodeResponseSchema, runJupyterResponseSchema } from '@fusebox/sandbox-client/protocol';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { readEnv } from '../src/env';
import {
  healthResponseSchema,
  sandboxCellSchema,
  sandboxSessionClosedSchema,
  sandboxSessionSchema,
  validationErrorSchema,
} from '../src/openapi-responses';
import { languagesResponseSchema } from '../src/routes/languages';
import { retrieveErrorSchema } from '../src/routes/retrieve';
import { createServerExecutor } from '../src/sandbox-executor';
import { buildServer } from '../src/server';
import {
  computeRewardResponseSchema,
  postprocessResponseSchema,
  processActionResponseSchema,
  sessionErrorSchema,
  startInstanceResponseSchema,
} from '@fusebox/agent-sessions';
import { loadBuiltinTasks } from '@fusebox/tasks';
import { BUILTIN } from './session-client';

const ROUTES = [
  'GET /v1/ping',
  'GET /health',
  'GET /openapi.json',
  'GET /v1/languages',
  'GET /list_datasets',
  'POST /list_ids',
  'POST /get_prompts',
  'POST /get_prompt_by_id',
  'POST /submit',
  'POST /get_metrics',
  'POST /get_metrics_function',
  'POST /run_code',
  'POST /run_jupyter',
  'POST /v1/sandbox/sessions',
  'GET /v1/sandbox/sessions/{id}',
  'DELETE /v1/sandbox/sessions/{id}',
  'POST /v1/sandbox/sessions/{id}/run',
  'POST /v1/sandbox/sessions/{id}/restart',
  'POST /retrieve',
  'POST /retrieve/{corpus}',
  'POST /start_instance',
  'POST /process_action',
  'POST /postprocess',
  'POST /compute_reward',
];

interface Operation {
  security?: unknown[];
  requestBody?: {
    content: {
      'application/json': { schema: { properties: Record<string, { type?: string[] }> } };
    };
  };
  responses: Record<string, unknown>;
}

describe('GET /openapi.json', () => {
  let database: TestDatabase;
  let opened: Database;
  let executor: Executor;
  let app: FastifyInstance;

  beforeAll(async () => {
    database = await createTestDatabase();
    opened = await database.open();
    const env = readEnv({ ...database.env, FUSEBOX_EXECUTOR_CONCURRENCY: '1' });
    executor = await createServerExecutor(env);
    await loadBuiltinTasks(opened.prisma);
    app = await buildServer(
      { env, prisma: opened.prisma, startedAt: new Date(), executor },
      { logger: false },
    );
  });
  afterAll(async () => {
    await app?.close();
    await executor?.close();
    await opened?.close();
    await database?.drop();
  });

  async function call(method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) {
    const response = await app.inject({ method, url, ...(payload ? { payload } : {}) });
    return { status: response.statusCode, body: response.json<unknown>() };
  }

  it('describes every plain HTTP route, each of which the server has', async () => {
    const { status, body } = await call('GET', '/openapi.json');
    expect(status).toBe(200);
    const document = body as { openapi: string; paths: Record<string, Record<string, Operation>> };
    expect(document.openapi).toBe('3.1.0');
    const described = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(described.sort()).toEqual([...ROUTES].sort());
    for (const route of described) {
      const [method, path] = route.split(' ') as ['GET' | 'POST' | 'DELETE', string];
      expect(app.hasRoute({ method, url: path.replace(/\{(\w+)\}/, ':$1') }), route).toBe(true);
    }
    // Only the liveness probe is open when FUSEBOX_API_TOKEN is set.
    expect(document.paths['/v1/ping']?.get?.security).toEqual([]);
    // verl sends sids as numbers or strings: the schema says both.
    const sid =
      document.paths['/process_action']?.post?.requestBody?.content['application/json'].schema.properties.sid;
    expect(sid?.type).toEqual(['string', 'number']);
    expect(Object.keys(document.paths['/process_action']?.post?.responses ?? {}).sort()).toEqual(
      ['200', '400', '401', '404', '409', '429', '500', '503'].sort(),
    );
  });

  it('documents the answers the routes really give (each parsed with the schema it is described from)', async () => {
    const expectShape = (schema: z.ZodType, value: unknown) =>
      expect(schema.safeParse(value).error).toBeUndefined();

    expectShape(healthResponseSchema, (await call('GET', '/health')).body);
    expectShape(languagesResponseSchema, (await call('GET', '/v1/languages')).body);
    expectShape(
      runCodeResponseSchema,
      (await call('POST', '/run_code', { code: 'print(1)', language: 'python' })).body,
    );
    expectShape(runJupyterResponseSchema, (await call('POST', '/run_jupyter', { cells: ['1 + 1'] })).body);
    expectShape(validationErrorSchema, (await call('POST', '/run_code', { language: 'python' })).body);

    const created = await call('POST', '/v1/sandbox/sessions', {});
    expectShape(sandboxSessionSchema, created.body);
    const id = (created.body as { session_id: string }).session_id;
    expectShape(
      sandboxCellSchema,
      (await call('POST', `/v1/sandbox/sessions/${id}/run`, { code: 'x = 1' })).body,
    );
    expectShape(sandboxSessionSchema, (await call('POST', `/v1/sandbox/sessions/${id}/restart`)).body);
    expectShape(sandboxSessionClosedSchema, (await call('DELETE', `/v1/sandbox/sessions/${id}`)).body);

    const started = await call('POST', '/start_instance', { instance_hash: BUILTIN.add });
    expectShape(startInstanceResponseSchema, started.body);
    const { sid } = started.body as { sid: string };
    expectShape(
      processActionResponseSchema,
      (await call('POST', '/process_action', { sid, content: 'print(1)' })).body,
    );
    expectShape(computeRewardResponseSchema, (await call('POST', '/compute_reward', { sid })).body);
    expectShape(postprocessResponseSchema, (await call('POST', '/postprocess', { sid })).body);
    expectShape(sessionErrorSchema, (await call('POST', '/process_action', { sid })).body);
    expectShape(retrieveErrorSchema, (await call('POST', '/retrieve/nope', { queries: ['x'] })).body);
  });
});
