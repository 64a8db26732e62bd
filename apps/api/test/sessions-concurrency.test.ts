import type { PrismaClient } from '@fusebox/db/client';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN, act, post, startSession } from './session-client';
import { type RunningServer, startServer } from './serve-process';

const SESSIONS = 200;
const ACTIONS = 5;

describe('agent sessions under concurrency', () => {
  let database: TestDatabase;
  let prisma: PrismaClient;
  let server: RunningServer;
  beforeAll(async () => {
    database = await createTestDatabase();
    prisma = database.reader();
    server = await startServer({ ...database.env, FUSEBOX_EXECUTOR_CONCURRENCY: '2' });
  });
  afterAll(async () => {
    await server?.stop();
    await prisma?.$disconnect();
    await database?.drop();
  });

  it(
    `loses nothing with ${SESSIONS} sessions of ${ACTIONS} actions at once: each action stored once, in order`,
    { timeout: 600_000 },
    async () => {
      // Half stateful (more sessions than interpreters, so some replay), half fresh programs.
      const episodes = Array.from({ length: SESSIONS }, (_, index) => ({ index, stateful: index % 2 === 0 }));
      const results = await Promise.all(
        episodes.map(async ({ index, stateful }) => {
          const sid = await startSession(server, stateful ? BUILTIN.add : BUILTIN.wordCount);
          const codes: string[] = [];
          const observations: string[] = [];
          for (let step = 1; step <= ACTIONS; step += 1) {
            const code = stateful
              ? `n = ${step === 1 ? 0 : 'n'} + 1\nprint(${index}, n)`
              : `print(${index}, ${step})`;
            codes.push(code);
            observations.push(await act(server, sid, code));
          }
          return { sid, index, codes, observations };
        }),
      );

      for (const { index, observations } of results) {
        expect(observations).toEqual([1, 2, 3, 4, 5].map((step) => `${index} ${step}\nexit code 0`));
      }
      const stored = await prisma.action.findMany({
        where: { sessionId: { in: results.map(({ sid }) => sid) } },
        orderBy: [{ sessionId: 'asc' }, { seq: 'asc' }],
        select: { sessionId: true, seq: true, code: true },
      });
      expect(stored).toHaveLength(SESSIONS * ACTIONS);
      for (const { sid, codes } of results) {
        const actions = stored.filter((action) => action.sessionId === sid);
        expect(actions.map(({ seq, code }) => [seq, code])).toEqual(codes.map((code, i) => [i + 1, code]));
      }
      const counts = await prisma.session.groupBy({
        by: ['actionCount'],
        where: { id: { in: results.map(({ sid }) => sid) } },
        _count: true,
      });
      expect(counts).toEqual([{ actionCount: ACTIONS, _count: SESSIONS }]);
    },
  );

  it("serialises one session's actions sent all at once: each stored once, numbered in the order they ran", async () => {
    const sid = await startSession(server, BUILTIN.add);
    await act(server, sid, 'n = 0');
    const observations = await Promise.all(
      Array.from({ length: ACTIONS }, () =>
        post(server, '/process_action', { sid, content: 'n += 1\nprint(n)' }),
      ),
    );
    // Each ran alone in the interpreter: every value of n seen exactly once.
    expect(observations.map((answer) => answer.body.content).sort()).toEqual(
      [1, 2, 3, 4, 5].map((value) => `${value}\nexit code 0`),
    );
    const actions = await prisma.action.findMany({
      where: { sessionId: sid },
      orderBy: { seq: 'asc' },
      select: { seq: true, observation: true },
    });
    expect(actions.map(({ seq, observation }) => [seq, observation])).toEqual([
      [1, 'exit code 0'],
      ...[1, 2, 3, 4, 5].map((value) => [value + 1, `${value}\nexit code 0`]),
    ]);
  });
});
