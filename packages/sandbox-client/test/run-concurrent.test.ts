import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConcurrentProgress,
  createSandboxClient,
  isSandboxClientError,
  type SandboxClient,
  SandboxHttpError,
} from '@fusebox/sandbox-client';
import type { RunCodeResponse } from '@fusebox/sandbox-client/protocol';
import { runCodeAnswer, sendJson, startTestServer, type TestServer } from './test-server';

let server: TestServer;
let client: SandboxClient;
let inFlight = 0;
let mostInFlight = 0;

beforeAll(async () => {
  // Echoes `code` after a delay that the code itself names, so later requests can finish first; "reject" gets a 422.
  server = await startTestServer(async (request, response) => {
    inFlight++;
    mostInFlight = Math.max(mostInFlight, inFlight);
    const { code } = JSON.parse(request.body) as { code: string };
    const [word = '', delay = '0'] = code.split(':');
    await new Promise((resolve) => setTimeout(resolve, Number(delay)));
    inFlight--;
    if (word === 'reject') return sendJson(response, 422, { detail: [{ type: 'missing' }] });
    sendJson(response, 200, runCodeAnswer('Success', word));
  });
  client = createSandboxClient({ endpoint: server.url });
});
afterAll(async () => {
  await client.close();
  await server.close();
});

const request = (code: string) => ({ code, language: 'python' as const });

describe('runConcurrent', () => {
  it('keeps input order, bounds concurrency and reports every completion', async () => {
    mostInFlight = 0;
    const requests = Array.from({ length: 24 }, (_, i) => request(`r${i}:${(24 - i) * 3}`));
    const progress: ConcurrentProgress<RunCodeResponse>[] = [];
    const results = await client.runConcurrent(requests, {
      concurrency: 4,
      onProgress: (p) => progress.push(p),
    });
    expect(results.map((result) => !isSandboxClientError(result) && result.run_result?.stdout)).toEqual(
      requests.map((_, i) => `r${i}`),
    );
    expect(mostInFlight).toBe(4);
    expect(progress.map((p) => p.completed)).toEqual(requests.map((_, i) => i + 1));
    expect(progress.every((p) => p.total === 24 && p.failed === 0)).toBe(true);
    expect(progress.map((p) => p.index).sort((a, b) => a - b)).toEqual(requests.map((_, i) => i));
  });

  it('puts a failed request’s error in its place and carries on', async () => {
    const requests = [request('a'), request('reject'), request('c')];
    const progress: ConcurrentProgress<RunCodeResponse>[] = [];
    const results = await client.runConcurrent(requests, {
      concurrency: 1,
      onProgress: (p) => progress.push(p),
    });
    expect(results[1]).toBeInstanceOf(SandboxHttpError);
    expect(results[1]).toMatchObject({ status: 422 });
    expect(results[2]).toMatchObject({ run_result: { stdout: 'c' } });
    expect(progress.at(-1)).toMatchObject({ completed: 3, failed: 1 });
  });

  it('rejects the whole batch with the signal’s reason and starts nothing more', async () => {
    const before = server.requests.length;
    const controller = new AbortController();
    const requests = Array.from({ length: 20 }, (_, i) => request(`slow${i}:2000`));
    const pending = client.runConcurrent(requests, {
      concurrency: 2,
      signal: controller.signal,
    });
    while (server.requests.length - before < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error('stop the batch'));
    await expect(pending).rejects.toThrow('stop the batch');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.requests.length - before).toBe(2);
  });

  it('resolves an empty batch to an empty list', async () => {
    await expect(client.runConcurrent([])).resolves.toEqual([]);
  });
});
