import type { PrismaClient } from '@fusebox/db/client';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN, act, post, startSession } from './session-client';
import { type RunningServer, startServer } from './serve-process';

const TOKEN = 'agent-s3cret';
const AUTH = { authorization: `Bearer ${TOKEN}` };

describe('agent session limits and auth', () => {
  // Two databases: every process expires idle sessions of its whole database by its own idle timeout.
  let database: TestDatabase;
  let expiringDatabase: TestDatabase;
  let prisma: PrismaClient;
  let guarded: RunningServer;
  let expiring: RunningServer;
  let saturatedDatabase: TestDatabase;
  let saturated: RunningServer;

  beforeAll(async () => {
    // One after the other: creating embedded test databases at once races on their shared template lock.
    database = await createTestDatabase();
    expiringDatabase = await createTestDatabase();
    saturatedDatabase = await createTestDatabase();
    prisma = expiringDatabase.reader();
    [guarded, expiring, saturated] = await Promise.all([
      startServer({
        ...database.env,
        FUSEBOX_API_TOKEN: TOKEN,
        FUSEBOX_AGENT_SESSION_MAX: '2',
        // One interpreter for the whole process: a second stateful session must do without.
        FUSEBOX_SESSION_MAX: '1',
        FUSEBOX_EXECUTOR_CONCURRENCY: '2',
      }),
      startServer({
        ...expiringDatabase.env,
        FUSEBOX_AGENT_SESSION_IDLE_TIMEOUT_S: '2',
        FUSEBOX_EXECUTOR_CONCURRENCY: '1',
      }),
      startServer({
        ...saturatedDatabase.env,
        // One global permit, waited for at most half a second: a second action during a long one is refused.
        FUSEBOX_MAX_CONCURRENCY: '1',
        FUSEBOX_LIMITER_TIMEOUT_S: '0.5',
        FUSEBOX_SESSION_MAX_ACTIONS: '3',
        FUSEBOX_SESSION_MAX_CODE_BYTES: '100',
      }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([guarded?.stop(), expiring?.stop(), saturated?.stop()]);
    await prisma?.$disconnect();
    await Promise.all([database?.drop(), expiringDatabase?.drop(), saturatedDatabase?.drop()]);
  });

  it('requires the bearer token on every session route when FUSEBOX_API_TOKEN is set', async () => {
    for (const path of ['/start_instance', '/process_action', '/postprocess', '/compute_reward']) {
      const bare = await post(guarded, path, { instance_hash: BUILTIN.add, sid: '1', content: '' });
      expect(bare.status, path).toBe(401);
      expect(bare.body).toEqual({ detail: 'missing bearer token' });
      const wrong = await post(guarded, path, { sid: '1' }, { authorization: 'Bearer nope' });
      expect(wrong.status, path).toBe(401);
    }
    const started = await post(guarded, '/start_instance', { instance_hash: BUILTIN.add }, AUTH);
    expect(started.status).toBe(200);
    const sid = started.body.sid as string;
    expect((await post(guarded, '/process_action', { sid, content: 'print(1)' }, AUTH)).body).toEqual({
      content: '1\nexit code 0',
    });
    expect((await post(guarded, '/compute_reward', { sid }, AUTH)).status).toBe(200);
    expect((await post(guarded, '/postprocess', { sid }, AUTH)).status).toBe(200);
  });

  it('leaves the session routes open without FUSEBOX_API_TOKEN', async () => {
    const sid = await startSession(expiring, BUILTIN.add);
    expect((await post(expiring, '/postprocess', { sid })).status).toBe(200);
  });

  it('answers 503 with Retry-After when FUSEBOX_AGENT_SESSION_MAX sessions are active, and admits again after postprocess', async () => {
    const start = () => post(guarded, '/start_instance', { instance_hash: BUILTIN.add }, AUTH);
    const first = await start();
    const second = await start();
    expect([first.status, second.status]).toEqual([200, 200]);
    const refused = await start();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.body.code).toBe('FUSEBOX_SESSION_LIMIT');
    expect(refused.body.detail).toContain('FUSEBOX_AGENT_SESSION_MAX');

    // Two stateful sessions and one interpreter: the second replays its cells and still sees its own state.
    const [a, b] = [first.body.sid as string, second.body.sid as string];
    const run = async (sid: string, content: string) =>
      (await post(guarded, '/process_action', { sid, content }, AUTH)).body.content;
    expect(await run(a, 'x = "a"')).toBe('exit code 0');
    expect(await run(b, 'x = "b"')).toBe('exit code 0');
    expect(await run(b, 'print(x)')).toBe('b\nexit code 0');
    expect(await run(a, 'print(x)')).toBe('a\nexit code 0');

    await post(guarded, '/postprocess', { sid: a }, AUTH);
    expect((await start()).status).toBe(200);
  });

  it('answers 429 with Retry-After when no global permit comes in time, and records it against the session', async () => {
    const [busy, refused] = [
      await startSession(saturated, BUILTIN.add),
      await startSession(saturated, BUILTIN.add),
    ];
    const long = post(saturated, '/process_action', { sid: busy, content: 'import time\ntime.sleep(3)' });
    // By then the long action holds the one permit.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const answer = await post(saturated, '/process_action', { sid: refused, content: 'print(1)' });
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(answer.body.code).toBe('FUSEBOX_LIMITER_TIMEOUT');
    expect((await long).status).toBe(200);
    const events = await saturatedDatabase.reader().sessionEvent.findMany({
      where: { sessionId: refused },
      select: { route: true, message: true },
    });
    expect(events.map((event) => `${event.route}: ${event.message}`)).toContainEqual(
      expect.stringMatching(/^\/process_action: 429 no permit/) as string,
    );
    // Nothing was run or counted for the refused action, and the session goes on.
    expect(await act(saturated, refused, 'print(2)')).toBe('2\nexit code 0');
  });

  it('refuses an action past FUSEBOX_SESSION_MAX_ACTIONS with 409, records it, and keeps the session', async () => {
    const sid = await startSession(saturated, BUILTIN.add);
    for (const content of ['def add(a, b):\n    return a + b', 'print(add(1, 2))', 'print(3)']) {
      await act(saturated, sid, content);
    }
    const refused = await post(saturated, '/process_action', { sid, content: 'print(4)' });
    expect(refused).toMatchObject({ status: 409, body: { code: 'FUSEBOX_SESSION_ACTION_LIMIT' } });
    expect(refused.body.detail).toContain('FUSEBOX_SESSION_MAX_ACTIONS');
    expect(refused.body.detail).toContain('3 actions');
    const reader = saturatedDatabase.reader();
    const session = await reader.session.findUniqueOrThrow({
      where: { id: sid },
      select: { actionCount: true, errorCount: true, state: true, _count: { select: { actions: true } } },
    });
    expect(session).toEqual({ actionCount: 3, errorCount: 1, state: 'active', _count: { actions: 3 } });
    const events = await reader.sessionEvent.findMany({
      where: { sessionId: sid },
      select: { message: true },
    });
    expect(events[0]?.message).toMatch(/^409 .*FUSEBOX_SESSION_MAX_ACTIONS/);
    // The session still ends as any other (this server's one permit is too few for the reward's tests).
    expect((await post(saturated, '/postprocess', { sid })).body).toMatchObject({
      state: 'postprocessed',
      actions: 3,
      errors: 1,
    });
  });

  it('refuses an action past FUSEBOX_SESSION_MAX_CODE_BYTES of state code with 409, unrun, and keeps the session', async () => {
    const sid = await startSession(saturated, BUILTIN.add);
    // Counted as a reward's tests carry it, JSON-encoded: 66 characters, 4 quotes more.
    expect(await act(saturated, sid, `x = "${'a'.repeat(60)}"`)).toBe('exit code 0');
    // 20 two-byte characters: 26 characters, 50 bytes encoded, past 100 with the 70 held.
    const refused = await post(saturated, '/process_action', { sid, content: `y = "${'é'.repeat(20)}"` });
    expect(refused).toMatchObject({ status: 409, body: { code: 'FUSEBOX_SESSION_CODE_LIMIT' } });
    expect(refused.body.detail).toContain(
      '120 bytes JSON-encoded, more than 100 (FUSEBOX_SESSION_MAX_CODE_BYTES)',
    );
    // A control character is 6 bytes encoded (\u0001): 5 of them and a `#` are 33.
    const controls = await post(saturated, '/process_action', { sid, content: `#${'\x01'.repeat(5)}` });
    expect(controls.body.detail).toContain('103 bytes JSON-encoded');
    // Shorter code is taken, on the state built before the refusals, which did not run.
    expect(await act(saturated, sid, "print(len(x),'y'in dir())")).toBe('60 False\nexit code 0');
    const reader = saturatedDatabase.reader();
    expect(
      await reader.session.findUniqueOrThrow({
        where: { id: sid },
        select: { actionCount: true, errorCount: true },
      }),
    ).toEqual({ actionCount: 2, errorCount: 2 });
    const events = await reader.sessionEvent.findMany({
      where: { sessionId: sid },
      select: { message: true },
    });
    expect(events.map((event) => event.message)).toEqual([
      expect.stringMatching(/^409 .*FUSEBOX_SESSION_MAX_CODE_BYTES/) as string,
      expect.stringMatching(/^409 .*FUSEBOX_SESSION_MAX_CODE_BYTES/) as string,
    ]);

    // A fresh session holds no state, but every test runs its latest code: that alone is held to the limit.
    const fresh = await startSession(saturated, BUILTIN.bashSum);
    const long = await post(saturated, '/process_action', { sid: fresh, content: `echo ${'a'.repeat(100)}` });
    expect(long).toMatchObject({ status: 409, body: { code: 'FUSEBOX_SESSION_CODE_LIMIT' } });
    expect(await act(saturated, fresh, `echo ${'a'.repeat(60)}`)).toBe(`${'a'.repeat(60)}\nexit code 0`);
    expect(await act(saturated, fresh, `echo ${'b'.repeat(60)}`)).toBe(`${'b'.repeat(60)}\nexit code 0`);
  });

  it('expires idle sessions: no more actions, but the reward can still be computed', async () => {
    const sid = await startSession(expiring, BUILTIN.add);
    await act(expiring, sid, 'def add(a, b):\n    return a + b');
    let state = 'active';
    for (let tries = 0; tries < 120 && state === 'active'; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      state = (await prisma.session.findUniqueOrThrow({ where: { id: sid }, select: { state: true } })).state;
    }
    expect(state).toBe('expired');
    const late = await post(expiring, '/process_action', { sid, content: 'print(1)' });
    expect(late).toMatchObject({ status: 409, body: { code: 'FUSEBOX_SESSION_CLOSED' } });
    expect(late.body.detail).toContain('expired');
    expect((await post(expiring, '/compute_reward', { sid })).body).toMatchObject({ reward: 1 });
    // Postprocess after expiry answers the summary and leaves the state saying why the session ended.
    expect((await post(expiring, '/postprocess', { sid })).body).toMatchObject({
      state: 'expired',
      actions: 1,
    });
    const events = await prisma.sessionEvent.findMany({
      where: { sessionId: sid },
      select: { level: true, route: true },
    });
    expect(events).toContainEqual({ level: 'info', route: 'idle timeout' });
  });
});
