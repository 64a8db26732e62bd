import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from './serve-process';

function processesMatching(pattern: string): string[] {
  try {
    return execFileSync('pgrep', ['-f', pattern], { encoding: 'utf8' }).split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

describe('fusebox serve under bad and hostile input', () => {
  let database: TestDatabase;
  let server: RunningServer;
  beforeAll(async () => {
    database = await createTestDatabase();
    server = await startServer({
      ...database.env,
      FUSEBOX_EXECUTOR_CONCURRENCY: '2',
      FUSEBOX_EXECUTOR_MEMORY_CAP_MB: '256',
      FUSEBOX_EXECUTOR_DISK_LIMIT_MB: '64',
      FUSEBOX_EXECUTOR_MAX_PROCESSES: '64',
      FUSEBOX_MAX_BODY_BYTES: '65536',
    });
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('stays healthy and leaves no process, directory or cgroup behind', { timeout: 120_000 }, async () => {
    const pid = server.process.pid as number;
    const apiPort = new URL(server.url).port;
    const post = async (path: string, body: unknown, signal?: AbortSignal) => {
      const response = await fetch(`${server.url}${path}`, {
        method: 'POST',
        body: typeof body === 'string' ? body : JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
        ...(signal ? { signal } : {}),
      });
      return { status: response.status, text: await response.text() };
    };
    const run = (language: string, code: string, extra: Record<string, unknown> = {}) =>
      post('/run_code', { code, language, run_timeout: 5, ...extra });

    const session = JSON.parse((await post('/v1/sandbox/sessions', {})).text) as { session_id: string };
    const disconnecting = new AbortController();
    const hostile = [
      post('/run_code', '{"code": '),
      post('/run_code', { code: 'x'.repeat(100_000), language: 'python' }),
      post('/run_code', { code: 'print(1)', language: 'cobol' }),
      post('/run_code', { code: null, language: ['python'], files: 'nope', fetch_files: {} }),
      run('bash', 'bomb() { bomb | bomb & }\nbomb\nsleep 2'),
      run('python', 'blocks = []\nwhile True:\n    blocks.append(bytearray(16 * 1024 * 1024))'),
      run('python', 'with open("fill", "wb") as f:\n    while True:\n        f.write(b"x" * 1048576)'),
      run('python', 'import sys\nfor _ in range(100):\n    sys.stdout.write("z" * 1_000_000)'),
      run('bash', 'setsid sleep 98770 &\nnohup sleep 98771 >/dev/null 2>&1 &\necho left them'),
      run(
        'python',
        `import socket\nfor port in (5432, ${apiPort}):\n    try:\n        socket.create_connection(("127.0.0.1", port), timeout=2)\n` +
          '        print(port, "connected")\n    except OSError as error:\n        print(port, type(error).__name__)',
      ),
      run('python', 'print("x")', { files: { '../../escape': 'eA==' } }),
      run('python', 'import os\nos.symlink("/etc/passwd", "p")', { fetch_files: ['p', '/etc/passwd'] }),
      post('/run_jupyter', { cells: ['import os', 'os._exit(9)', 'print(1)'] }),
      post(`/v1/sandbox/sessions/${session.session_id}/run`, { code: 'import os\nos.kill(os.getpid(), 9)' }),
    ];
    // A client that goes away mid-run: its run is killed, and nothing is left of it.
    const disconnected = post(
      '/run_code',
      { code: 'import time\ntime.sleep(30)', language: 'python', run_timeout: 60 },
      disconnecting.signal,
    ).catch(() => undefined);
    setTimeout(() => disconnecting.abort(), 1_000);
    const answers = await Promise.all(hostile.slice(0, 12));
    expect(answers.map((answer) => answer.status)).toEqual([
      422, 413, 422, 422, 200, 200, 200, 200, 200, 200, 200, 200,
    ]);
    for (const answer of answers.slice(4)) expect(JSON.parse(answer.text)).toHaveProperty('status');
    // Neither Postgres nor the API itself is reachable from inside.
    expect(JSON.parse(answers[9]!.text)).toMatchObject({
      run_result: { stdout: `5432 ConnectionRefusedError\n${apiPort} ConnectionRefusedError\n` },
    });
    await Promise.all([...hostile.slice(12), disconnected]);

    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    const after = await run('python', 'print("still serving")');
    expect(JSON.parse(after.text)).toMatchObject({
      status: 'Success',
      run_result: { stdout: 'still serving\n' },
    });
    expect(processesMatching('sleep 9877[01]')).toEqual([]);

    expect(await server.stop('SIGTERM')).toBe(0);
    expect(processesMatching(`fusebox-sandbox-${pid}-`)).toEqual([]);
    expect(
      readdirSync(tmpdir()).filter((name) => name.includes(`-${pid}-`) && name.startsWith('fusebox-')),
    ).toEqual([]);
    for (const controller of ['pids', 'memory']) {
      const left = readdirSync(`/sys/fs/cgroup/${controller}/fusebox`).filter((name) =>
        name.startsWith(`${pid}-`),
      );
      expect(left).toEqual([]);
    }
  });
});
