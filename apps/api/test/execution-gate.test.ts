import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type pg from 'pg';
import { connectPostgres } from '@fusebox/db/sql-client';
import { type PostgresTestDatabase, createPostgresTestDatabase } from '@fusebox/db/testing';
import { listLimiters } from '@fusebox/rate-limiter/pg';
import { maxOverlap } from '@fusebox/testing/max-overlap';
import { type RunningServer, startServer } from './serve-process';

interface RunCodeAnswer {
  status: string;
  message: string;
  run_result: { stdout: string } | null;
}

async function runCode(server: RunningServer, code: string) {
  const response = await fetch(`${server.url}/run_code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code, language: 'python' }),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as RunCodeAnswer,
  };
}

describe('the global limit on executions', () => {
  let database: PostgresTestDatabase;
  let admin: pg.Client;
  const servers: RunningServer[] = [];

  beforeAll(async () => {
    database = await createPostgresTestDatabase();
    admin = await connectPostgres(database.url);
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await admin?.end();
    await database?.drop();
  });

  const executions = async (key: string) =>
    (
      await admin.query<{
        status: string;
        message: string;
        acquired_at: Date;
        finished_at: Date;
        queue_wait_ms: number;
        worker_id: string;
      }>(
        `SELECT status, message, acquired_at, finished_at, queue_wait_ms, worker_id
         FROM execution WHERE limiter_key = $1 ORDER BY requested_at`,
        [key],
      )
    ).rows;

  it('is shared by two API processes on one database: recorded run intervals never exceed it, and reach it', async () => {
    const env = {
      DATABASE_URL: database.url,
      FUSEBOX_MAX_CONCURRENCY: '2',
      FUSEBOX_LIMITER_KEY: 'shared-cap',
    };
    const pair = await Promise.all([startServer(env), startServer(env)]);
    servers.push(...pair);

    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        runCode(pair[i % 2]!, 'import time\ntime.sleep(0.3)\nprint("done")'),
      ),
    );
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ status: 'Success', run_result: { stdout: 'done\n' } });
    }

    // Rows are written just after each response.
    await vi.waitFor(async () => expect(await executions('shared-cap')).toHaveLength(12), {
      timeout: 10_000,
    });
    const rows = await executions('shared-cap');
    expect(new Set(rows.map((row) => row.worker_id)).size).toBe(2);
    expect(maxOverlap(rows.map((row) => [row.acquired_at.getTime(), row.finished_at.getTime()]))).toBe(2);
    // Twelve 0.3 s runs two at a time: most of them queued for the limit, and that wait is recorded.
    expect(rows.filter((row) => row.queue_wait_ms > 250).length).toBeGreaterThanOrEqual(6);
  }, 90_000);

  describe('one API process with a limit of 1 and a 0.5 s queue timeout', () => {
    let server: RunningServer;

    beforeAll(async () => {
      server = await startServer({
        DATABASE_URL: database.url,
        FUSEBOX_MAX_CONCURRENCY: '1',
        FUSEBOX_LIMITER_KEY: 'one-at-a-time',
        FUSEBOX_LIMITER_TIMEOUT_S: '0.5',
      });
      servers.push(server);
    });

    const holder = async () => {
      let pid: number | null | undefined;
      await vi.waitFor(async () => {
        const limiters = await listLimiters({ connectionString: database.url });
        pid = limiters.find((limiter) => limiter.key === 'one-at-a-time')?.holders[0]?.pid;
        expect(pid).toEqual(expect.any(Number));
      });
      return pid!;
    };

    it('answers 429 with Retry-After when waiting for a permit would take longer', async () => {
      const running = runCode(server, 'import time\ntime.sleep(3)\nprint("first")');
      await holder();
      const refused = await runCode(server, 'print("second")');
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(refused.body).toMatchObject({ detail: 'no permit for limiter "one-at-a-time" within 500 ms' });
      expect((await running).body).toMatchObject({ status: 'Success', run_result: { stdout: 'first\n' } });
    });

    it('aborts an execution whose permit is lost and answers SandboxError, never a success', async () => {
      const started = Date.now();
      const running = runCode(server, 'import time\ntime.sleep(20)\nprint("finished unguarded")');
      await admin.query('SELECT pg_terminate_backend($1)', [await holder()]);
      const answer = await running;

      expect(answer.status).toBe(200);
      expect(answer.body.status).toBe('SandboxError');
      expect(answer.body.message).toMatch(/permit 1 of limiter "one-at-a-time" was lost/);
      expect(Date.now() - started).toBeLessThan(15_000);
      await vi.waitFor(
        async () =>
          expect((await executions('one-at-a-time')).at(-1)).toMatchObject({
            status: 'SandboxError',
            message: expect.stringMatching(/was lost/) as unknown,
          }),
        { timeout: 10_000 },
      );

      // The limiter recovers by itself: the next execution runs.
      expect((await runCode(server, 'print("again")')).body).toMatchObject({ status: 'Success' });
    });
  });
});
