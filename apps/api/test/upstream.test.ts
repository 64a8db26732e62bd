import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, createTestDatabase } from '@fusebox/db/testing';
import { type RunningServer, startServer } from './serve-process';

async function post(server: RunningServer, path: string, body: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

// The upstream is a second, real Fusebox: it answers SandboxFusion's protocol and records what it ran.
describe(
  'SANDBOX_FUSION_URL: executions forwarded to an upstream SandboxFusion',
  { timeout: 120_000 },
  () => {
    let upstreamDatabase: TestDatabase;
    let proxyDatabase: TestDatabase;
    let upstream: RunningServer;
    let proxy: RunningServer;

    beforeAll(async () => {
      [upstreamDatabase, proxyDatabase] = await Promise.all([createTestDatabase(), createTestDatabase()]);
      upstream = await startServer(upstreamDatabase.env);
      // verl's form of the URL, ending in /run_code, as users copy it from their tool config.
      proxy = await startServer({ ...proxyDatabase.env, SANDBOX_FUSION_URL: `${upstream.url}/run_code` });
    });

    afterAll(async () => {
      await Promise.all([proxy?.stop(), upstream?.stop()]);
      await Promise.all([proxyDatabase?.drop(), upstreamDatabase?.drop()]);
    });

    it('runs /run_code and /run_jupyter on the upstream, answering and recording as it did', async () => {
      expect(proxy.output()).toContain(`run on the upstream SandboxFusion at ${upstream.url}`);
      const code = 'import sys; print("from upstream"); sys.exit(3)';
      const run = await post(proxy, '/run_code', { code, language: 'python' });
      expect(run.status).toBe(200);
      expect(run.body).toMatchObject({
        status: 'Failed',
        message: '',
        compile_result: null,
        run_result: { status: 'Finished', return_code: 3, stdout: 'from upstream\n', stderr: '' },
      });

      const jupyter = await post(proxy, '/run_jupyter', { cells: ['x = 20', 'x + 22'] });
      expect(jupyter.status).toBe(200);
      expect(jupyter.body).toMatchObject({ status: 'Success' });
      expect(JSON.stringify(jupyter.body)).toContain('42');

      const ranUpstream = await upstreamDatabase.reader().execution.findMany({
        where: { source: { in: ['run_code', 'run_jupyter'] } },
        select: { source: true, code: true, returnCode: true },
        orderBy: { requestedAt: 'asc' },
      });
      expect(ranUpstream.map((row) => row.source)).toEqual(['run_code', 'run_jupyter']);
      expect(ranUpstream[0]).toMatchObject({ code, returnCode: 3 });

      // The proxy records them too, under its own global limit, with the upstream's step time as run time.
      await expect
        .poll(() =>
          proxyDatabase.reader().execution.findMany({
            select: { source: true, status: true, stdout: true, limiterKey: true, runMs: true },
            orderBy: { requestedAt: 'asc' },
          }),
        )
        .toMatchObject([
          { source: 'run_code', status: 'Failed', stdout: 'from upstream\n', limiterKey: 'run_code' },
          { source: 'run_jupyter', status: 'Success', limiterKey: 'run_code' },
        ]);
      const [recorded] = await proxyDatabase.reader().execution.findMany({ where: { source: 'run_code' } });
      expect(recorded?.runMs).toBeGreaterThan(0);
    });

    it('keeps validating bodies itself: a bad one never reaches the upstream', async () => {
      const bad = await post(proxy, '/run_code', { language: 'python' });
      expect(bad.status).toBe(422);
      expect(JSON.stringify(bad.body)).toContain('"loc":["body","code"]');
    });

    it('answers 502 naming the upstream when it is down, and stays up', async () => {
      await upstream.stop();
      const down = await post(proxy, '/run_code', { code: 'print(1)', language: 'python' });
      expect(down.status).toBe(502);
      expect(down.body.detail).toContain(
        `the upstream SandboxFusion at ${upstream.url} did not answer usably`,
      );
      const ping = await fetch(`${proxy.url}/v1/ping`);
      expect(await ping.json()).toBe('pong');
    });
  },
);
