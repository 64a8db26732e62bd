import { describe, expect, it } from 'vitest';
import { SandboxAbortedError, SandboxTimeoutError } from '@fusebox/sandbox-client';
import { clientAgainst } from './client-against';
import { runCodeAnswer, sendJson, type Handler } from './test-server';

const REQUEST = { code: 'while True: pass', language: 'python' } as const;
const neverAnswers: Handler = () => undefined;
const busyForAMinute: Handler = (_request, response) =>
  sendJson(response, 503, { detail: 'busy' }, { 'retry-after': '60' });

describe('timeouts', () => {
  it('rejects a response slower than timeoutMs with a SandboxTimeoutError', async () => {
    const { server, client } = await clientAgainst(neverAnswers, { timeoutMs: 150 });
    const error: unknown = await client.runCode(REQUEST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxTimeoutError);
    expect(error).toMatchObject({ code: 'FUSEBOX_SANDBOX_TIMEOUT', timeoutMs: 150 });
    expect(server.requests).toHaveLength(1);
  });

  it('counts backoff waits against the deadline, and a per-call timeout wins over the client default', async () => {
    const { server, client } = await clientAgainst(busyForAMinute, { timeoutMs: 60_000 });
    const started = performance.now();
    await expect(client.runCode(REQUEST, { timeoutMs: 200 })).rejects.toBeInstanceOf(SandboxTimeoutError);
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(server.requests).toHaveLength(1);
  });
  it('times out each call at its own deadline, whatever order they started in', async () => {
    const { server, client } = await clientAgainst(neverAnswers);
    const settled: string[] = [];
    const track = (name: string, promise: Promise<unknown>) =>
      promise.catch((error: unknown) => {
        settled.push(name);
        return error;
      });
    const slow = track('slow', client.runCode(REQUEST, { timeoutMs: 600 }));
    const fast = track('fast', client.runCode(REQUEST, { timeoutMs: 100 }));
    expect(await fast).toMatchObject({ code: 'FUSEBOX_SANDBOX_TIMEOUT', timeoutMs: 100 });
    expect(await slow).toMatchObject({ code: 'FUSEBOX_SANDBOX_TIMEOUT', timeoutMs: 600 });
    expect(settled).toEqual(['fast', 'slow']);
    expect(server.requests).toHaveLength(2);
  });
});

describe('aborts', () => {
  it('rejects with the signal’s reason while waiting for the answer', async () => {
    const { server, client } = await clientAgainst(neverAnswers);
    const controller = new AbortController();
    const reason = new Error('rollout cancelled');
    const pending = client.runCode(REQUEST, { signal: controller.signal });
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('stops a backoff wait at once instead of sleeping out a Retry-After', async () => {
    const { server, client } = await clientAgainst(busyForAMinute);
    const controller = new AbortController();
    const started = performance.now();
    const pending = client.runCode(REQUEST, { signal: controller.signal });
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    setTimeout(() => controller.abort(), 100);
    const error: unknown = await pending.catch((e: unknown) => e);
    expect(error).toBe(controller.signal.reason);
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(server.requests).toHaveLength(1);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const { server, client } = await clientAgainst((_request, response) =>
      sendJson(response, 200, runCodeAnswer('Success')),
    );
    const reason = new Error('already gone');
    await expect(client.runCode(REQUEST, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(server.requests).toHaveLength(0);
  });

  it('close() stops calls in flight and refuses new ones', async () => {
    const { server, client } = await clientAgainst(neverAnswers);
    const pending = client.runCode(REQUEST).catch((e: unknown) => e);
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await client.close();
    expect(await pending).toBeInstanceOf(SandboxAbortedError);
    await expect(client.ping()).rejects.toMatchObject({ code: 'FUSEBOX_SANDBOX_ABORTED' });
    expect(server.requests).toHaveLength(1);
  });
});
