// A minimal stand-in for a real SandboxFusion server, as the baseline: every /run_code request writes the code to
// a fresh temporary directory and runs a fresh /usr/bin/python3 on it, with no isolation and no concurrency bound
// (SandboxFusion never reads its max_concurrency), and answers in SandboxFusion's response shape.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface RunResult {
  status: 'Finished' | 'TimeLimitExceeded';
  execution_time: number;
  return_code: number | null;
  stdout: string;
  stderr: string;
}

async function runPython(code: string, timeoutS: number): Promise<RunResult> {
  const dir = await mkdtemp(join(tmpdir(), 'sf-standin-'));
  try {
    await writeFile(join(dir, 'main.py'), code);
    const started = performance.now();
    const child = spawn('/usr/bin/python3', ['main.py'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutS * 1000);
    const [code_] = (await once(child, 'close')) as [number | null];
    clearTimeout(timer);
    return {
      status: timedOut ? 'TimeLimitExceeded' : 'Finished',
      execution_time: (performance.now() - started) / 1000,
      return_code: timedOut ? null : code_,
      stdout,
      stderr,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (request.method === 'GET' && request.url === '/v1/ping') {
    response.writeHead(200, { 'content-type': 'application/json' }).end('"pong"');
    return;
  }
  if (request.method !== 'POST' || request.url !== '/run_code') {
    response.writeHead(404).end();
    return;
  }
  let body = '';
  for await (const chunk of request) body += (chunk as Buffer).toString();
  const { code, run_timeout: runTimeout = 10 } = JSON.parse(body) as { code: string; run_timeout?: number };
  const run = await runPython(code, runTimeout);
  const status = run.status === 'TimeLimitExceeded' || run.return_code !== 0 ? 'Failed' : 'Success';
  const answer = {
    status,
    message: '',
    compile_result: null,
    run_result: run,
    executor_pod_name: null,
    files: {},
  };
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
}

/** Starts the stand-in on a free loopback port; resolves to its base URL and a stop function. */
export async function startSandboxFusionStandin(): Promise<{ url: string; stop(): Promise<void> }> {
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(500).end(String(error));
    });
  });
  server.keepAliveTimeout = 75_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
