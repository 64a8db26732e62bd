import { createPostgresTestDatabase, type PostgresTestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN, fenced, post, startSession } from './session-client';
import { type RunningServer, startServer } from './serve-process';

// A sandbox that cannot start is the server's failure, not the client's and not a crash to hide: the client gets
// 503 with Retry-After and the reason, never a 500. Here every interpreter dies starting: a sandbox memory cap of
// 24 MB is less than python3 with IPython needs to come up, so the kernel kills it before it says it is ready.

describe('when a sandbox cannot start', () => {
  let database: PostgresTestDatabase;
  let server: RunningServer;

  beforeAll(async () => {
    database = await createPostgresTestDatabase();
    server = await startServer({ ...database.env, FUSEBOX_EXECUTOR_MEMORY_CAP_MB: '24' });
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('answers an interpreter session 503 with Retry-After, saying why, and an agent action the same', async () => {
    const opened = await post(server, '/v1/sandbox/sessions', {});
    expect(opened.status).toBe(503);
    expect(opened.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(opened.body.detail).toMatch(/the sandbox did not start/);

    // A stateful task's first action needs an interpreter too.
    const sid = await startSession(server, BUILTIN.add);
    const action = await post(server, '/process_action', {
      sid,
      content: fenced('python', 'def add(a, b):\n    return a + b'),
    });
    expect(action.status).toBe(503);
    expect(action.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(action.body).toMatchObject({
      code: 'FUSEBOX_LOCAL_SANDBOX_FAILURE',
      detail: expect.stringMatching(/the sandbox did not start/) as unknown,
    });
    // Control: the server itself is fine, and code that needs less than the cap still runs.
    const ran = await post(server, '/run_code', { code: 'echo $((6 * 7))', language: 'bash' });
    expect(ran).toMatchObject({ status: 200, body: { status: 'Success', run_result: { stdout: '42\n' } } });
  });
});
