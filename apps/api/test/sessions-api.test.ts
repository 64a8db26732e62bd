import type { PrismaClient } from '@fusebox/db/client';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN, act, fenced, post, startSession } from './session-client';
import { type RunningServer, startServer } from './serve-process';

const CORRECT_ADD = fenced('python', 'def add(a, b):\n    return a + b');
const WRONG_ADD = fenced('python', 'def add(a, b):\n    return a - b');

describe('the agent session API (verl swedev protocol)', () => {
  let database: TestDatabase;
  let prisma: PrismaClient;
  let server: RunningServer;
  const env = () => ({
    ...database.env,
    FUSEBOX_EXECUTOR_CONCURRENCY: '2',
    FUSEBOX_AGENT_OBSERVATION_MAX_CHARS: '300',
  });

  beforeAll(async () => {
    database = await createTestDatabase();
    prisma = database.reader();
    server = await startServer(env());
  });
  afterAll(async () => {
    await server?.stop();
    await prisma?.$disconnect();
    await database?.drop();
  });

  it('runs a whole episode: int64 ids as JSON numbers, state kept between actions, reward 1.0, everything stored', async () => {
    // verl sends instance_id.item() and sid.item(): Python ints, so JSON numbers beyond 2^53.
    const started = await post(server, '/start_instance', `{"instance_hash": ${BUILTIN.add}}`);
    expect(started.status).toBe(200);
    const sid = started.body.sid as string;
    expect(sid).toMatch(/^[1-9]\d{0,18}$/);
    expect(BigInt(sid) < 2n ** 63n).toBe(true);
    // Committed before the answer.
    expect(
      await prisma.session.findUnique({ where: { id: sid }, select: { taskId: true, state: true } }),
    ).toEqual({
      taskId: BUILTIN.add,
      state: 'active',
    });

    const first = await post(
      server,
      '/process_action',
      `{"sid": ${sid}, "content": ${JSON.stringify(CORRECT_ADD)}}`,
    );
    expect(first).toMatchObject({ status: 200, body: { content: 'exit code 0' } });
    expect(await act(server, sid, 'print(add(2, 3))\nadd(10, 1)')).toBe('5\n11\nexit code 0');
    const failing = await act(server, sid, fenced('py', 'add(1)'));
    expect(failing).toContain("TypeError: add() missing 1 required positional argument: 'b'");
    expect(failing.endsWith('exit code 1')).toBe(true);
    expect(failing).not.toContain('\x1b[');

    const reward = await post(server, '/compute_reward', `{"sid": ${sid}}`);
    expect(reward).toMatchObject({
      status: 200,
      body: { reward: 1, f2p_count: 4, f2p_total: 4, p2p_count: 0, p2p_total: 0 },
    });

    const actions = await prisma.action.findMany({
      where: { sessionId: sid },
      orderBy: { seq: 'asc' },
      select: {
        seq: true,
        code: true,
        status: true,
        returnCode: true,
        execution: { select: { source: true, limiterKey: true } },
      },
    });
    expect(actions).toEqual([
      {
        seq: 1,
        code: 'def add(a, b):\n    return a + b\n',
        status: 'success',
        returnCode: 0,
        execution: { source: 'session_action', limiterKey: 'run_code' },
      },
      {
        seq: 2,
        code: 'print(add(2, 3))\nadd(10, 1)',
        status: 'success',
        returnCode: 0,
        execution: { source: 'session_action', limiterKey: 'run_code' },
      },
      {
        seq: 3,
        code: 'add(1)\n',
        status: 'runtime_error',
        returnCode: 1,
        execution: { source: 'session_action', limiterKey: 'run_code' },
      },
    ]);
    const stored = await prisma.session.findUnique({
      where: { id: sid },
      select: { actionCount: true, lastActionAt: true, reward: true, f2pCount: true, rewardDetail: true },
    });
    expect(stored).toMatchObject({ actionCount: 3, reward: 1, f2pCount: 4 });
    const detail = (stored?.rewardDetail ?? []) as {
      name: string;
      group: string;
      passed: boolean;
      status: string;
    }[];
    expect(detail.map(({ name, group, passed, status }) => [name, group, passed, status])).toEqual(
      ['small_ints', 'negatives', 'zero', 'floats'].map((name) => [name, 'f2p', true, 'success']),
    );
    expect(await prisma.execution.count({ where: { sessionId: sid, source: 'session_reward' } })).toBe(4);

    // Asking again runs nothing and answers the same.
    expect((await post(server, '/compute_reward', { sid })).body).toEqual(reward.body);
    expect(await prisma.execution.count({ where: { sessionId: sid, source: 'session_reward' } })).toBe(4);

    const summary = await post(server, '/postprocess', { sid });
    expect(summary).toMatchObject({
      status: 200,
      body: { sid, instance_hash: BUILTIN.add, state: 'postprocessed', actions: 3, errors: 0, reward: 1 },
    });
    expect((await post(server, '/postprocess', { sid })).body).toEqual(summary.body);

    const late = await post(server, '/process_action', { sid, content: 'print(1)' });
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ code: 'FUSEBOX_SESSION_CLOSED' });
    expect((await post(server, '/compute_reward', { sid })).body).toEqual(reward.body);
  });

  it('scores a wrong solution below 1 with the f2p rule, and rescoring after a fix', async () => {
    const sid = await startSession(server, BUILTIN.add);
    await act(server, sid, WRONG_ADD);
    // a - b passes only add(0, 0) == 0.
    expect((await post(server, '/compute_reward', { sid })).body).toEqual({
      reward: 0.25,
      f2p_count: 1,
      f2p_total: 4,
      p2p_count: 0,
      p2p_total: 0,
    });
    await act(server, sid, CORRECT_ADD);
    expect((await post(server, '/compute_reward', { sid })).body).toMatchObject({ reward: 1, f2p_count: 4 });
  });

  it('counts pass-to-pass tests separately, with setup files in the working directory', async () => {
    const sid = await startSession(server, BUILTIN.inventory);
    expect(await act(server, sid, 'import inventory\nprint(inventory.total())')).toBe('3\nexit code 0');
    // Nothing solved yet: the existing functions still pass.
    expect((await post(server, '/compute_reward', { sid })).body).toEqual({
      reward: 0,
      f2p_count: 0,
      f2p_total: 3,
      p2p_count: 2,
      p2p_total: 2,
    });
    await act(
      server,
      sid,
      fenced(
        'python',
        'from inventory import STOCK\ndef restock(item, amount):\n    if amount <= 0:\n        raise ValueError(amount)\n    STOCK[item] = STOCK.get(item, 0) + amount\n    return STOCK[item]',
      ),
    );
    expect((await post(server, '/compute_reward', { sid })).body).toEqual({
      reward: 1,
      f2p_count: 3,
      f2p_total: 3,
      p2p_count: 2,
      p2p_total: 2,
    });
  });

  it('runs fresh-mode tasks as whole programs and scores them on stdin/stdout', async () => {
    const words = await startSession(server, BUILTIN.wordCount);
    expect(await act(server, words, 'x = 1')).toBe('exit code 0');
    // Fresh: nothing is kept from the previous action.
    expect(await act(server, words, 'print(x)')).toContain("NameError: name 'x' is not defined");
    await act(server, words, fenced('python', 'import sys\nprint(len(sys.stdin.read().split()))'));
    expect((await post(server, '/compute_reward', { sid: words })).body).toMatchObject({
      reward: 1,
      f2p_count: 3,
    });

    const sum = await startSession(server, BUILTIN.bashSum);
    expect(await act(server, sum, fenced('bash', 's=0\nwhile read n; do s=$((s+n)); done\necho "$s"'))).toBe(
      '0\nexit code 0',
    );
    expect((await post(server, '/compute_reward', { sid: sum })).body).toMatchObject({
      reward: 1,
      f2p_count: 3,
    });
  });

  it('cuts long observations in the middle with a visible marker, keeping how the run ended', async () => {
    const sid = await startSession(server, BUILTIN.add);
    const observation = await act(server, sid, "print('a' * 5000)\nprint('the end')");
    expect(observation.length).toBeLessThan(400);
    expect(observation).toContain('...(truncated)...');
    expect(observation.startsWith('aaaa')).toBe(true);
    expect(observation.endsWith('the end\nexit code 0')).toBe(true);
  });

  it('tells the model when a timeout lost the state, and records it against the session', async () => {
    const sid = await startSession(server, BUILTIN.add);
    await act(server, sid, 'x = 41');
    const timedOut = await act(server, sid, 'while True:\n    pass');
    expect(timedOut).toContain('timeout after 10s');
    expect(timedOut).toContain('the Python session was restarted');
    expect(await act(server, sid, 'print(x)')).toContain("NameError: name 'x' is not defined");
    const events = await prisma.sessionEvent.findMany({
      where: { sessionId: sid },
      select: { level: true, message: true },
    });
    expect(events.map(({ level }) => level)).toEqual(['warning']);
    expect(events[0]?.message).toContain('action 2 ended with timeout');
  });

  it('answers clear JSON errors, and records each against its session', async () => {
    const unknownTask = await post(server, '/start_instance', { instance_hash: '12345' });
    expect(unknownTask.status).toBe(404);
    expect(unknownTask.body.code).toBe('FUSEBOX_SESSION_TASK_NOT_FOUND');
    expect(unknownTask.body.detail).toContain('12345');

    const unknownSid = await post(server, '/process_action', { sid: 77, content: 'print(1)' });
    expect(unknownSid).toMatchObject({ status: 404, body: { code: 'FUSEBOX_SESSION_NOT_FOUND' } });

    const sid = await startSession(server, BUILTIN.add);
    const missing = await post(server, '/process_action', { sid });
    expect(missing).toMatchObject({
      status: 400,
      body: { code: 'FUSEBOX_SESSION_INVALID_REQUEST', field: 'content' },
    });
    const wrongType = await post(server, '/process_action', { sid, content: ['print(1)'] });
    expect(wrongType).toMatchObject({ status: 400, body: { field: 'content' } });
    expect((await post(server, '/compute_reward', { sid: true })).body).toMatchObject({ field: 'sid' });
    expect((await post(server, '/compute_reward', { sid: -5 })).body).toMatchObject({ field: 'sid' });
    expect((await post(server, '/start_instance', {})).body).toMatchObject({ field: 'instance_hash' });
    expect((await post(server, '/start_instance', { instance_hash: 'abc' })).body).toMatchObject({
      field: 'instance_hash',
    });
    const notJson = await post(server, '/postprocess', '{"sid": ');
    expect(notJson).toMatchObject({ status: 400, body: { field: '' } });
    expect(notJson.body.detail).toContain('not JSON');

    const recorded = await prisma.session.findUnique({
      where: { id: sid },
      select: {
        errorCount: true,
        events: { select: { level: true, route: true, message: true }, orderBy: { createdAt: 'asc' } },
      },
    });
    expect(recorded?.errorCount).toBe(2);
    expect(
      recorded?.events.map(({ level, route, message }) => [level, route, message.split(':')[0]]),
    ).toEqual([
      ['error', '/process_action', '400 content'],
      ['error', '/process_action', '400 content'],
    ]);
  });

  it('keeps a stateful session going across a restart of Fusebox', async () => {
    const sid = await startSession(server, BUILTIN.add);
    await act(server, sid, 'secret = 6 * 7\nprint("set")');
    await server.stop();
    server = await startServer(env());
    // The new process rebuilds the state from the stored actions, quietly.
    expect(await act(server, sid, 'print(secret)')).toBe('42\nexit code 0');
    const actions = await prisma.action.findMany({
      where: { sessionId: sid },
      orderBy: { seq: 'asc' },
      select: { seq: true },
    });
    expect(actions.map((action) => action.seq)).toEqual([1, 2]);
  });
});
