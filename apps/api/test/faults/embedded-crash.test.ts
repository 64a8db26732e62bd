import { createEmbeddedTestDatabase, type EmbeddedTestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN, act, fenced, post, startSession } from '../session-client';
import { type RunningServer, startServer } from '../serve-process';

// The embedded database (PGlite) runs inside `fusebox serve` and has no background WAL writer: a commit that
// did not flush its WAL before the answer would be lost when the process dies. Whatever was answered must still
// be there after a SIGKILL right after the last answer, and the reward computed on it must be the same.
describe('an embedded server killed right after answering', () => {
  let database: EmbeddedTestDatabase;
  let server: RunningServer | undefined;

  beforeAll(async () => {
    database = await createEmbeddedTestDatabase();
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('keeps every answered action and execution, and rewards the session the same', async () => {
    server = await startServer({ ...database.env, FUSEBOX_EXECUTOR_ISOLATION: 'none' });
    const codes = ['print("crash 1")', 'print("crash 2")'];
    for (const code of codes) {
      const answer = await post(server, '/run_code', { code, language: 'python' });
      expect(answer.status).toBe(200);
    }
    const sid = await startSession(server, BUILTIN.add);
    for (let step = 1; step <= 3; step += 1) {
      expect(await act(server, sid, fenced('python', `n = ${step === 1 ? 0 : 'n'} + 1\nprint(n)`))).toMatch(
        new RegExp(`^${step}$`, 'm'),
      );
    }
    await act(server, sid, fenced('python', 'def add(a, b):\n    return a + b'));
    // Nothing else is committed after the last answer: its own commit must have reached the data directory.
    await server.stop('SIGKILL');

    server = await startServer({ ...database.env, FUSEBOX_EXECUTOR_ISOLATION: 'none' });
    const prisma = database.reader();
    try {
      const actions = await prisma.action.findMany({
        where: { sessionId: sid },
        orderBy: { seq: 'asc' },
        select: { seq: true },
      });
      expect(actions.map(({ seq }) => seq)).toEqual([1, 2, 3, 4]);
      for (const code of codes) expect(await prisma.execution.count({ where: { code } })).toBe(1);
    } finally {
      await prisma.$disconnect();
    }
    const reward = await post(server, '/compute_reward', { sid });
    expect(reward).toMatchObject({ status: 200, body: { reward: 1 } });
  });
});
