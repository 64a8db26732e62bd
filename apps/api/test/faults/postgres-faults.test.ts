import { randomUUID } from 'node:crypto';
import { createPrismaClient, type PrismaClient } from '@fusebox/db/client';
import { maxOverlap } from '@fusebox/testing/max-overlap';
import { type ThrowawayPostgres, startThrowawayPostgres } from '@fusebox/testing/throwaway-postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN, fenced, startSession } from '../session-client';
import { type RunningServer, startServer } from '../serve-process';

// The fault suite on Postgres: API processes and a Postgres cluster of the test's own (throwaway, loopback),
// under a steady load of /run_code and agent actions, while one fault happens. After each: every request that
// was answered 200 is in the database, the global limit held, and every other answer was a 503 with Retry-After
// (never a 500, never a 429 blaming saturation) or, for a killed process, no answer at all. The measured
// recovery times go to docs/failure-modes.md; the bounds here are generous (a loaded 2-core machine).
const LIMIT = 2;
const LOADERS = 4;
const STATEMENT_TIMEOUT_MS = 1_000;

interface Outcome {
  kind: 'run_code' | 'action';
  /** What identifies the request in the database: its code, or its action's content. */
  marker: string;
  /** HTTP status, or 0 when the connection failed (a killed process). */
  status: number;
  retryAfter: string | null;
  /** /run_code answered 200: the SandboxFusion status it answered (a lost permit answers SandboxError). */
  answered?: string;
  sid?: string;
  sentAt: number;
  ms: number;
}

/** Sends /run_code and agent actions from LOADERS loops until `stop` resolves, to the servers in turn. */
async function underLoad(servers: () => RunningServer[], during: () => Promise<void>): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let running = true;
  let turn = 0;
  const send = async (kind: Outcome['kind'], sid?: string): Promise<void> => {
    const marker = `fault ${randomUUID()}`;
    const server = servers()[turn++ % servers().length]!;
    const sentAt = performance.now();
    const [path, body] =
      kind === 'run_code'
        ? [
            '/run_code',
            { code: `import time; time.sleep(0.05); print(${JSON.stringify(marker)})`, language: 'python' },
          ]
        : ['/process_action', { sid, content: fenced('python', `print(${JSON.stringify(marker)})`) }];
    const response = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    }).catch(() => undefined);
    const text = (await response?.text()) ?? '';
    const answered =
      kind === 'run_code' && response?.status === 200
        ? (JSON.parse(text) as { status: string }).status
        : undefined;
    outcomes.push({
      ...(answered ? { answered } : {}),
      kind,
      marker,
      status: response?.status ?? 0,
      retryAfter: response?.headers.get('retry-after') ?? null,
      ...(sid ? { sid } : {}),
      sentAt,
      ms: performance.now() - sentAt,
    });
  };
  const loops = Array.from({ length: LOADERS }, async (_, index) => {
    const sid = index % 2 === 1 ? await startSession(servers()[0]!, BUILTIN.wordCount) : undefined;
    while (running) {
      await send(sid ? 'action' : 'run_code', sid);
      // A refused request is retried after a pause, as a client honouring Retry-After would (shortened).
      if (outcomes.at(-1)!.status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  await during();
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  running = false;
  await Promise.all(loops);
  return outcomes;
}

/** Every answered request is stored; the permits never overlapped beyond the limit; refusals were 503s. */
async function expectNothingLost(prisma: PrismaClient, outcomes: Outcome[], allowUnanswered: boolean) {
  const answered = outcomes.filter((outcome) => outcome.status === 200);
  expect(answered.length).toBeGreaterThan(0);
  for (const outcome of answered) {
    // Each stored once, as answered (a run whose permit was lost when Postgres went away answers SandboxError).
    const stored =
      outcome.kind === 'run_code'
        ? (
            await prisma.execution.findMany({
              where: { code: { contains: outcome.marker } },
              select: { status: true },
            })
          ).map((row) => row.status)
        : (
            await prisma.action.findMany({
              where: { sessionId: outcome.sid!, content: { contains: outcome.marker } },
              select: { status: true },
            })
          ).map(() => 'stored');
    expect({ marker: outcome.marker, stored }).toEqual({
      marker: outcome.marker,
      stored: [outcome.answered ?? 'stored'],
    });
  }
  for (const outcome of outcomes.filter((each) => each.status !== 200)) {
    if (outcome.status === 0 && allowUnanswered) continue;
    expect({ status: outcome.status, retryAfter: outcome.retryAfter }).toEqual({
      status: 503,
      retryAfter: expect.stringMatching(/^\d+$/) as unknown,
    });
  }
  const runs = await prisma.execution.findMany({
    where: { acquiredAt: { not: null }, finishedAt: { not: null } },
    select: { acquiredAt: true, finishedAt: true },
  });
  expect(
    maxOverlap(runs.map((run) => [run.acquiredAt!.getTime(), run.finishedAt!.getTime()])),
  ).toBeLessThanOrEqual(LIMIT);
}

/** What the clients got, for the log: counts by answer. */
function tally(outcomes: Outcome[]): string {
  const count = (status: number) => outcomes.filter((outcome) => outcome.status === status).length;
  return `${count(200)} answered 200, ${count(503)} answered 503, ${count(0)} unanswered`;
}

/** Milliseconds from `since` to the first request sent after it that was answered 200. */
function recoveryMs(outcomes: Outcome[], since: number): number {
  const first = outcomes
    .filter((outcome) => outcome.sentAt >= since && outcome.status === 200)
    .sort((a, b) => a.sentAt - b.sentAt)[0];
  return first ? first.sentAt + first.ms - since : Infinity;
}

describe('faults on Postgres under load', () => {
  let postgres: ThrowawayPostgres;
  let prisma: PrismaClient;
  let servers: RunningServer[] = [];
  const env = () => ({
    DATABASE_URL: postgres.url,
    FUSEBOX_MAX_CONCURRENCY: String(LIMIT),
    FUSEBOX_DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
    FUSEBOX_EXECUTOR_ISOLATION: 'none',
  });

  beforeAll(async () => {
    postgres = await startThrowawayPostgres();
    servers = await Promise.all([0, 1].map(() => startServer(env())));
    prisma = createPrismaClient(postgres.url);
  }, 180_000);
  afterAll(async () => {
    await postgres?.signal('SIGCONT');
    await Promise.all(servers.map((server) => server.stop()));
    await prisma?.$disconnect();
    await postgres?.destroy();
  });

  it('loses nothing answered when an API process is SIGKILLed', { timeout: 120_000 }, async () => {
    let alive = servers;
    const outcomes = await underLoad(
      () => alive,
      async () => {
        await servers[1]!.stop('SIGKILL');
        alive = [servers[0]!];
      },
    );
    await expectNothingLost(prisma, outcomes, true);
    console.log(`fault suite: API process SIGKILLed: ${tally(outcomes)}`);
    servers[1] = await startServer(env());
  });

  it(
    'answers 503 while Postgres is stopped, and recovers once it is back',
    { timeout: 120_000 },
    async () => {
      let restartedAt = 0;
      let dashboard: Response | undefined;
      let opening: Response | undefined;
      const outcomes = await underLoad(
        () => servers,
        async () => {
          await postgres.stop();
          // Beyond the load's routes: the dashboard's reads and opening a session.
          dashboard = await fetch(`${servers[0]!.url}/trpc/executions.languages`);
          opening = await fetch(`${servers[0]!.url}/start_instance`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ instance_hash: BUILTIN.add }),
          });
          await new Promise((resolve) => setTimeout(resolve, 3_000));
          await postgres.start();
          restartedAt = performance.now();
        },
      );
      await expectNothingLost(prisma, outcomes, false);
      expect(dashboard?.status).toBe(503);
      expect(opening?.status).toBe(503);
      expect(opening?.headers.get('retry-after')).toMatch(/^\d+$/);
      console.log(
        `fault suite: Postgres stopped 3 s: ${tally(outcomes)}; first 200 ${recoveryMs(outcomes, restartedAt).toFixed(0)} ms after restart`,
      );
      expect(recoveryMs(outcomes, restartedAt)).toBeLessThan(15_000);
    },
  );

  it('keeps every answered write through a Postgres crash', { timeout: 120_000 }, async () => {
    let restartedAt = 0;
    const outcomes = await underLoad(
      () => servers,
      async () => {
        await postgres.signal('SIGKILL');
        await postgres.start();
        restartedAt = performance.now();
      },
    );
    await expectNothingLost(prisma, outcomes, false);
    console.log(
      `fault suite: Postgres crashed: ${tally(outcomes)}; first 200 ${recoveryMs(outcomes, restartedAt).toFixed(0)} ms after restart`,
    );
    expect(recoveryMs(outcomes, restartedAt)).toBeLessThan(15_000);
  });

  it(
    'answers 503 within seconds while Postgres is frozen, and recovers on thaw',
    { timeout: 120_000 },
    async () => {
      let frozenAt = 0;
      let thawedAt = 0;
      const outcomes = await underLoad(
        () => servers,
        async () => {
          await postgres.signal('SIGSTOP');
          frozenAt = performance.now();
          await new Promise((resolve) => setTimeout(resolve, 6_000));
          await postgres.signal('SIGCONT');
          thawedAt = performance.now();
        },
      );
      await expectNothingLost(prisma, outcomes, false);
      const duringFreeze = outcomes.filter(
        (outcome) => outcome.sentAt >= frozenAt && outcome.sentAt < thawedAt,
      );
      const slowest = Math.max(...duringFreeze.map((outcome) => outcome.ms));
      console.log(
        `fault suite: Postgres frozen 6 s: ${tally(outcomes)}; slowest answer sent during the freeze ${slowest.toFixed(0)} ms; ` +
          `first 200 ${recoveryMs(outcomes, thawedAt).toFixed(0)} ms after thaw`,
      );
      expect(slowest).toBeLessThan(20_000);
      expect(recoveryMs(outcomes, thawedAt)).toBeLessThan(15_000);
    },
  );
});
