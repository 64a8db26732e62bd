import { once } from 'node:events';
import { createServer } from 'node:net';
import { Agent } from 'undici';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  createSandboxClient,
  type SandboxClientOptions,
  SandboxHttpError,
  SandboxUnavailableError,
} from '@fusebox/sandbox-client';
import { clientAgainst } from './client-against';
import { runCodeAnswer, sendJson, type Handler } from './test-server';

const REQUEST = { code: 'print("ok")', language: 'python' } as const;

// A tiny backoff keeps the suite fast; the delays themselves are the bench's business.
const setup = (handler: Handler, options: SandboxClientOptions = {}) =>
  clientAgainst(handler, { retry: { baseDelayMs: 5 }, ...options });
describe('retries', () => {
  it('waits at least as long as a 429 Retry-After says before trying again', async () => {
    const { server, client } = await setup((_request, response, index) =>
      index === 0
        ? sendJson(response, 429, { detail: 'busy' }, { 'retry-after': '1' })
        : sendJson(response, 200, runCodeAnswer('Success', 'ok\n')),
    );
    const started = performance.now();
    const result = await client.runCode(REQUEST);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
    expect(result.run_result?.stdout).toBe('ok\n');
    expect(server.requests).toHaveLength(2);
  });

  it('gets through three 503s and returns the fourth answer', async () => {
    const { server, client } = await setup((_request, response, index) =>
      index < 3
        ? sendJson(response, 503, { detail: 'overloaded' })
        : sendJson(response, 200, runCodeAnswer('Success')),
    );
    await expect(client.runCode(REQUEST)).resolves.toMatchObject({ status: 'Success' });
    expect(server.requests).toHaveLength(4);
    expect(server.requests.map((request) => request.body)).toEqual(Array(4).fill(JSON.stringify(REQUEST)));
  });

  it('gives up after the configured attempts with the attempt count and the last status', async () => {
    const { server, client } = await setup(
      (_request, response) => sendJson(response, 502, { detail: 'bad gateway' }),
      {
        retry: { attempts: 3, baseDelayMs: 5 },
      },
    );
    const error = await client.runCode(REQUEST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxUnavailableError);
    expect(error).toMatchObject({ code: 'FUSEBOX_SANDBOX_UNAVAILABLE', attempts: 3 });
    expect((error as Error).cause).toBeInstanceOf(SandboxHttpError);
    expect((error as Error).cause).toMatchObject({ status: 502, body: '{"detail":"bad gateway"}' });
    expect(server.requests).toHaveLength(3);
  });

  it('makes 5 attempts by default', async () => {
    const { server, client } = await setup((_request, response) => sendJson(response, 504, {}));
    await expect(client.runCode(REQUEST)).rejects.toMatchObject({ attempts: 5 });
    expect(server.requests).toHaveLength(5);
  });

  it('retries a connection dropped in the middle of the response', async () => {
    const { server, client } = await setup((_request, response, index) => {
      if (index > 0) return sendJson(response, 200, runCodeAnswer('Success', 'second\n'));
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
      response.write('{"status":"Success","message":"","compile');
      setTimeout(() => response.socket?.destroy(), 20);
    });
    await expect(client.runCode(REQUEST)).resolves.toMatchObject({ run_result: { stdout: 'second\n' } });
    expect(server.requests).toHaveLength(2);
  });

  it('retries a connection reset before any answer', async () => {
    const { server, client } = await setup((_request, response, index) => {
      if (index === 0) response.socket?.resetAndDestroy();
      else sendJson(response, 200, runCodeAnswer('Success'));
    });
    await expect(client.runCode(REQUEST)).resolves.toMatchObject({ status: 'Success' });
    expect(server.requests).toHaveLength(2);
  });

  it('retries a socket timeout of the dispatcher', async () => {
    const dispatcher = new Agent({ headersTimeout: 200 });
    onTestFinished(() => dispatcher.close());
    const { server, client } = await setup(
      (_request, response, index) => {
        if (index > 0) sendJson(response, 200, runCodeAnswer('Success'));
      },
      { dispatcher },
    );
    await expect(client.runCode(REQUEST)).resolves.toMatchObject({ status: 'Success' });
    expect(server.requests).toHaveLength(2);
  });

  it('retries a refused connection, then reports it unavailable', async () => {
    const reserved = createServer().listen(0, '127.0.0.1');
    await once(reserved, 'listening');
    const { port } = reserved.address() as { port: number };
    reserved.close();
    await once(reserved, 'close');
    const client = createSandboxClient({
      endpoint: `http://127.0.0.1:${port}`,
      retry: { attempts: 2, baseDelayMs: 5 },
    });
    onTestFinished(() => client.close());
    const error = await client.ping().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'FUSEBOX_SANDBOX_UNAVAILABLE', attempts: 2 });
    expect((error as Error).cause).toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('never retries a Failed run: wrong code is not transient', async () => {
    const { server, client } = await setup((_request, response) =>
      sendJson(response, 200, runCodeAnswer('Failed', '', 3)),
    );
    await expect(client.runCode(REQUEST)).resolves.toMatchObject({
      status: 'Failed',
      run_result: { return_code: 3 },
    });
    expect(server.requests).toHaveLength(1);
  });

  it('returns a SandboxError as is by default', async () => {
    const { server, client } = await setup((_request, response) =>
      sendJson(response, 200, runCodeAnswer('SandboxError')),
    );
    await expect(client.runCode(REQUEST)).resolves.toMatchObject({
      status: 'SandboxError',
      message: 'sandbox broke',
    });
    expect(server.requests).toHaveLength(1);
  });

  it('retries a SandboxError when asked to, and returns the last one when attempts run out', async () => {
    const recovering = await setup(
      (_request, response, index) =>
        sendJson(response, 200, runCodeAnswer(index < 2 ? 'SandboxError' : 'Success')),
      { retry: { sandboxError: true, baseDelayMs: 5 } },
    );
    await expect(recovering.client.runCode(REQUEST)).resolves.toMatchObject({ status: 'Success' });
    expect(recovering.server.requests).toHaveLength(3);

    const broken = await setup(
      (_request, response) => sendJson(response, 200, runCodeAnswer('SandboxError')),
      {
        retry: { sandboxError: true, attempts: 2, baseDelayMs: 5 },
      },
    );
    await expect(broken.client.runCode(REQUEST)).resolves.toMatchObject({ status: 'SandboxError' });
    expect(broken.server.requests).toHaveLength(2);
  });

  it('does not retry other statuses such as 500', async () => {
    const { server, client } = await setup((_request, response) =>
      sendJson(response, 500, { detail: 'boom' }),
    );
    await expect(client.runCode(REQUEST)).rejects.toMatchObject({
      code: 'FUSEBOX_SANDBOX_HTTP',
      status: 500,
    });
    expect(server.requests).toHaveLength(1);
  });
});
