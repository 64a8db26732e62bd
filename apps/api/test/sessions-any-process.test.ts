import type { PrismaClient } from '@fusebox/db/client';
import { createPostgresTestDatabase, type PostgresTestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN, act, fenced, post, startSession } from './session-client';
import { type RunningServer, startServer } from './serve-process';

// Three API processes on one Postgres, with no sticky routing: each session's actions go round-robin to all of
// them, as after a failover or behind a load balancer without stickiness. Postgres only (several processes).
const SESSIONS = 6;
const ACTIONS = 6;

describe('agent sessions served by any process', () => {
  let database: PostgresTestDatabase;
  let prisma: PrismaClient;
  let servers: RunningServer[] = [];

  beforeAll(async () => {
    database = await createPostgresTestDatabase();
    prisma = database.reader();
    servers = await Promise.all(
      [0, 1, 2].map(() => startServer({ ...database.env, FUSEBOX_EXECUTOR_CONCURRENCY: '2' })),
    );
  }, 180_000);
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await prisma?.$disconnect();
    await database?.drop();
  });

  it('numbers every action once, in order, keeps a stateful session’s state, and rewards it', async () => {
    const episodes = await Promise.all(
      Array.from({ length: SESSIONS }, async (_, index) => {
        const sid = await startSession(servers[index % 3]!, BUILTIN.add);
        const observations: string[] = [];
        for (let step = 1; step <= ACTIONS; step += 1) {
          // The state is built up one action at a time, each on the next process.
          const code = `n = ${step === 1 ? 0 : 'n'} + 1\nprint(${index}, n)`;
          observations.push(await act(servers[(index + step) % 3]!, sid, fenced('python', code)));
        }
        const solution = 'def add(a, b):\n    return a + b';
        await act(servers[(index + ACTIONS + 1) % 3]!, sid, fenced('python', solution));
        const reward = await post(servers[(index + 2) % 3]!, '/compute_reward', { sid });
        return { index, sid, observations, reward };
      }),
    );
    for (const { index, sid, observations, reward } of episodes) {
      // Each process saw the state the others built: n counts 1..ACTIONS across all three.
      for (const [step, text] of observations.entries()) {
        expect(text).toMatch(new RegExp(`^${index} ${step + 1}$`, 'm'));
      }
      expect(reward.status).toBe(200);
      expect(reward.body.reward).toBe(1);
      const stored = await prisma.action.findMany({ where: { sessionId: sid }, select: { seq: true } });
      expect(stored.map(({ seq }) => seq).sort((a, b) => a - b)).toEqual(
        Array.from({ length: ACTIONS + 1 }, (_, step) => step + 1),
      );
      const session = await prisma.session.findUniqueOrThrow({
        where: { id: sid },
        select: { actionCount: true },
      });
      expect(session.actionCount).toBe(ACTIONS + 1);
    }
  });

  it('fails only the action of a session that ended, never the others stored with it', async () => {
    const [ended, ...healthy] = await Promise.all(
      [0, 1, 2, 3].map(() => startSession(servers[0]!, BUILTIN.add)),
    );
    // Known to server 0, then ended through server 1: server 0 still holds it in memory.
    await act(servers[0]!, ended!, fenced('python', 'print(0)'));
    expect((await post(servers[1]!, '/postprocess', { sid: ended })).status).toBe(200);
    const answers = await Promise.all(
      [ended!, ...healthy].map((sid) =>
        post(servers[0]!, '/process_action', { sid, content: fenced('python', 'print(1)') }),
      ),
    );
    expect(answers[0]).toMatchObject({ status: 409, body: { code: 'FUSEBOX_SESSION_CLOSED' } });
    for (const answer of answers.slice(1)) expect(answer.status).toBe(200);
  });
});
