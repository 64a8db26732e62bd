import { afterEach, describe, expect, it } from 'vitest';
import { createSandboxClient, type SandboxClientOptions } from '@fusebox/sandbox-client';
import { sendJson, sendText, startTestServer } from './test-server';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function pongServer() {
  const server = await startTestServer((request, response) =>
    request.path.endsWith('/v1/ping') ? sendText(response, 200, '"pong"') : sendJson(response, 200, []),
  );
  cleanups.push(() => server.close());
  return server;
}

function setEnv(name: string, value: string) {
  const previous = process.env[name];
  process.env[name] = value;
  cleanups.push(() => {
    if (previous === undefined) delete process.env[name];
    else process.env[name] = previous;
  });
}

function client(options?: SandboxClientOptions) {
  const created = createSandboxClient(options);
  cleanups.push(() => created.close());
  return created;
}

describe('endpoints', () => {
  it('defaults to SANDBOX_FUSION_ENDPOINT, as the Python SDK does, with a trailing slash tolerated', async () => {
    const server = await pongServer();
    setEnv('SANDBOX_FUSION_ENDPOINT', `${server.url}/`);
    await client().ping();
    expect(server.requests.map((request) => request.path)).toEqual(['/v1/ping']);
  });

  it('keeps a path prefix and sends dataset routes to SANDBOX_FUSION_DATASET_ENDPOINT', async () => {
    const sandbox = await pongServer();
    const datasets = await pongServer();
    setEnv('SANDBOX_FUSION_ENDPOINT', `${sandbox.url}/sandbox/`);
    setEnv('SANDBOX_FUSION_DATASET_ENDPOINT', `${datasets.url}/oj`);
    const created = client();
    await created.ping();
    await created.listDatasets();
    expect(sandbox.requests.map((request) => request.path)).toEqual(['/sandbox/v1/ping']);
    expect(datasets.requests.map((request) => request.path)).toEqual(['/oj/list_datasets']);
  });

  it('sends the configured headers with every request', async () => {
    const server = await pongServer();
    await client({ endpoint: server.url, headers: { authorization: 'Bearer t0ken' } }).ping();
    expect(server.requests[0]?.headers.authorization).toBe('Bearer t0ken');
  });

  it("adds a call's own headers to that call only, the client's winning a clash", async () => {
    const server = await pongServer();
    const created = client({ endpoint: server.url, headers: { authorization: 'Bearer t0ken' } });
    await created.ping({ headers: { 'x-fusebox-request-id': 'r1', Authorization: 'Bearer other' } });
    await created.ping();
    const [first, second] = server.requests.map((request) => request.headers);
    expect([first?.['x-fusebox-request-id'], first?.authorization]).toEqual(['r1', 'Bearer t0ken']);
    expect([second?.['x-fusebox-request-id'], second?.authorization]).toEqual([undefined, 'Bearer t0ken']);
  });
});

describe('bad options throw a TypeError saying what was expected', () => {
  it.each([
    [{ endpoint: 'localhost:8080' }, /endpoint must be an http\(s\) URL/],
    [{ endpoint: 'ftp://host' }, /endpoint must be an http\(s\) URL/],
    [{ datasetEndpoint: 42 }, /datasetEndpoint must be an http\(s\) URL/],
    [{ retry: { attempts: 0 } }, /retry.attempts must be an integer ≥ 1, got 0/],
    [{ retry: { maxDelayMs: -1 } }, /retry.maxDelayMs must be a finite number/],
    [{ retry: { sandboxError: 'yes' } }, /retry.sandboxError must be a boolean/],
    [{ timeoutMs: 0 }, /timeoutMs must be a number of milliseconds > 0/],
    [{ headers: { 'x-n': 1 } }, /headers must be an object of header names to string values/],
    [{ dispatcher: {} }, /dispatcher must be an undici Dispatcher/],
  ])('%o', (options, message) => {
    expect(() => createSandboxClient(options as SandboxClientOptions)).toThrow(message);
    expect(() => createSandboxClient(options as SandboxClientOptions)).toThrow(TypeError);
  });

  it('checks call options before sending anything', async () => {
    const server = await pongServer();
    const created = client({ endpoint: server.url });
    await expect(created.ping({ timeoutMs: -5 })).rejects.toThrow(
      /timeoutMs must be a number of milliseconds > 0/,
    );
    await expect(created.ping({ signal: 'stop' as unknown as AbortSignal })).rejects.toThrow(TypeError);
    await expect(
      created.ping({ headers: { 'x-n': 1 } as unknown as Record<string, string> }),
    ).rejects.toThrow(/headers must be an object of header names to string values/);
    await expect(created.runConcurrent([], { concurrency: 0 })).rejects.toThrow(
      /concurrency must be an integer ≥ 1/,
    );
    expect(server.requests).toHaveLength(0);
  });
});
