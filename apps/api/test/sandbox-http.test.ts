import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from './serve-process';

const MAX_BODY_BYTES = 64 * 1024;

async function post(server: RunningServer, path: string, body: unknown, init: RequestInit = {}) {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
    ...init,
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    json: JSON.parse(text) as Record<string, unknown>,
  };
}

describe('the sandbox routes over HTTP', () => {
  let database: TestDatabase;
  let server: RunningServer;
  beforeAll(async () => {
    database = await createTestDatabase();
    server = await startServer({
      ...database.env,
      FUSEBOX_EXECUTOR_CONCURRENCY: '1',
      FUSEBOX_EXECUTOR_QUEUE_LIMIT: '1',
      FUSEBOX_MAX_BODY_BYTES: String(MAX_BODY_BYTES),
    });
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  describe('bad input', () => {
    it('answers 422 naming each missing or wrong-typed field, in pydantic v2 shape', async () => {
      const response = await post(server, '/run_code', {
        code: 5,
        language: 'python',
        run_timeout: 'soon',
        files: [],
      });
      expect(response.status).toBe(422);
      expect(response.json).toEqual({
        detail: [
          {
            type: 'float_parsing',
            loc: ['body', 'run_timeout'],
            msg: 'Input should be a valid number, unable to parse string as a number',
            input: 'soon',
          },
          { type: 'string_type', loc: ['body', 'code'], msg: 'Input should be a valid string', input: 5 },
          { type: 'dict_type', loc: ['body', 'files'], msg: 'Input should be a valid dictionary', input: [] },
        ],
      });
      const jupyter = await post(server, '/run_jupyter', { cells: 'print(1)' });
      expect(jupyter.status).toBe(422);
      expect(jupyter.json.detail).toMatchObject([{ type: 'list_type', loc: ['body', 'cells'] }]);
    });

    it('answers 422 for a body that is not JSON, or not an object, or absent', async () => {
      const broken = await post(server, '/run_code', '{"code": "print(1)", "language": ');
      expect(broken.status).toBe(422);
      expect(broken.json.detail).toMatchObject([{ type: 'json_invalid', msg: 'JSON decode error' }]);
      const array = await post(server, '/run_code', [1, 2]);
      expect(array.json.detail).toMatchObject([{ type: 'model_attributes_type', loc: ['body'] }]);
      const empty = await post(server, '/run_code', '', { headers: {} });
      expect(empty.status).toBe(422);
      expect(empty.json.detail).toMatchObject([{ type: 'missing', loc: ['body'] }]);
    });

    it('answers 413 for a body over FUSEBOX_MAX_BODY_BYTES, and still serves the next request', async () => {
      const big = await post(server, '/run_code', {
        code: `# ${'x'.repeat(MAX_BODY_BYTES)}`,
        language: 'python',
      });
      expect(big.status).toBe(413);
      expect(big.json.detail).toContain(`${MAX_BODY_BYTES} bytes`);
      const next = await post(server, '/run_code', { code: 'print("ok")', language: 'python' });
      expect(next.json).toMatchObject({ status: 'Success', run_result: { stdout: 'ok\n' } });
    });
  });

  it('answers 429 with Retry-After when the slot and the queue are taken, without losing the queued run', async () => {
    const slow = { code: 'import time\ntime.sleep(4)\nprint("slow")', language: 'python' };
    const running = post(server, '/run_code', slow);
    const queued = post(server, '/run_code', slow);
    // Generous: both must have reached the executor (one running, one queued) well before the first ends.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const refused = await post(server, '/run_code', slow);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await running).json.status).toBe('Success');
    expect((await queued).json.status).toBe('Success');
  });

  it('records every execution in the execution table, with statuses, output and timings', async () => {
    // A NUL byte, which Postgres text cannot hold, must not cost the row (or its batch).
    const code = `print("recorded ${Date.now()}\\0")\nraise SystemExit(4)`;
    await post(server, '/run_code', { code, language: 'python' });
    await post(server, '/run_jupyter', { cells: ['x = 20', 'x + 1'] });
    const prisma = database.reader();
    try {
      let rows: Awaited<ReturnType<typeof prisma.execution.findMany>> = [];
      for (let attempt = 0; attempt < 50 && rows.length < 2; attempt += 1) {
        rows = await prisma.execution.findMany({
          where: { OR: [{ code }, { source: 'run_jupyter', code: 'x = 20\n# %%\nx + 1' }] },
          orderBy: { requestedAt: 'asc' },
        });
        if (rows.length < 2) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(rows).toHaveLength(2);
      const [run, jupyter] = rows;
      expect(run).toMatchObject({
        source: 'run_code',
        language: 'python',
        status: 'Failed',
        runStatus: 'Finished',
        compileStatus: null,
        returnCode: 4,
        stdout: expect.stringMatching(/^recorded \d+\uFFFD\n$/) as string,
        outputTruncated: false,
      });
      expect(run!.acquiredAt!.getTime()).toBeGreaterThanOrEqual(run!.requestedAt.getTime());
      expect(run!.finishedAt!.getTime()).toBeGreaterThanOrEqual(run!.acquiredAt!.getTime());
      expect(run!.runMs).toBeGreaterThan(0);
      expect(run!.workerId).toMatch(/:\d+$/);
      expect(jupyter).toMatchObject({ source: 'run_jupyter', status: 'Success', runStatus: 'Finished' });
    } finally {
      await prisma.$disconnect();
    }
  });

  it('serves stateful sessions: create, run cells with state, restart after a timeout, close', async () => {
    const created = await post(server, '/v1/sandbox/sessions', { cell_timeout: 1 });
    expect(created.status).toBe(201);
    const id = created.json.session_id as string;
    const run = (code: string) => post(server, `/v1/sandbox/sessions/${id}/run`, { code });

    expect((await run('n = 6')).json).toMatchObject({ status: 'ok', execution_count: 1, alive: true });
    expect((await run('n * 7')).json).toMatchObject({ display: [{ 'text/plain': '42' }] });
    const raised = await run('undefined_name');
    expect(raised.json).toMatchObject({ status: 'error', error: [{ ename: 'NameError' }], alive: true });
    const slow = await run('import time\ntime.sleep(5)');
    expect(slow.json).toMatchObject({ status: 'timeout', alive: false, error: [{ ename: 'TimeoutError' }] });
    const dead = await run('n');
    expect(dead.status).toBe(409);
    expect(dead.json.detail).toContain('restart');

    const restarted = await post(server, `/v1/sandbox/sessions/${id}/restart`, {});
    expect(restarted.json).toMatchObject({ session_id: id, alive: true, execution_count: 0 });
    expect((await run('1 + 1')).json).toMatchObject({ status: 'ok', display: [{ 'text/plain': '2' }] });

    const info = await fetch(`${server.url}/v1/sandbox/sessions/${id}`);
    expect(await info.json()).toMatchObject({
      session_id: id,
      alive: true,
      execution_count: 1,
      cell_timeout: 1,
    });
    const closed = await fetch(`${server.url}/v1/sandbox/sessions/${id}`, { method: 'DELETE' });
    expect(await closed.json()).toEqual({ session_id: id, closed: true });
    const gone = await run('1');
    expect(gone.status).toBe(404);
    expect((await post(server, '/v1/sandbox/sessions', { memory_limit_MB: 'lots' })).status).toBe(422);
  });

  it('works for a Python client calling it the way verl does', async () => {
    const script = `
import requests, sys
url = sys.argv[1]
payload = {"compile_timeout": 10, "run_timeout": 10, "code": "print(sum(range(10)))", "stdin": None,
           "memory_limit_MB": 1024, "language": "python", "files": {}, "fetch_files": []}
response = requests.post(url, json=payload, headers={"Content-Type": "application/json", "Accept": "application/json"}, timeout=30)
result = response.json()
print(response.status_code, result["status"], result["run_result"]["status"], repr(result["run_result"]["stdout"]))
`;
    const { stdout } = await promisify(execFile)('/usr/bin/python3', [
      '-c',
      script,
      `${server.url}/run_code`,
    ]);
    expect(stdout).toBe("200 Success Finished '45\\n'\n");
  });
});
