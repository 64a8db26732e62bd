import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import type { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../src/services';
import { createCaller } from '@fusebox/api-router';
import { trpcContext } from '../src/trpc-context';
import { openTestServices } from './router-context';

describe('tasks and sessions over tRPC', () => {
  let database: TestDatabase;
  let ctx: Services;
  let close: () => Promise<void>;

  beforeAll(async () => {
    database = await createTestDatabase();
    ({ services: ctx, close } = await openTestServices(database));
    const tests = [
      { name: 'adds', kind: 'assert', code: 'assert add(1, 2) == 3' },
      { name: 'runs', kind: 'assert', code: 'assert callable(add)' },
    ];
    await ctx.prisma.task.createMany({
      data: [
        {
          id: '11',
          name: 'add two numbers',
          source: 'fusebox',
          prompt: 'Write add(a, b).',
          language: 'python',
          tests,
          failToPass: ['adds'],
          passToPass: ['runs'],
        },
        {
          id: '12',
          name: 'echo',
          source: 'autoeval',
          prompt: 'Echo stdin.',
          language: 'bash',
          sessionMode: 'fresh',
          tests: [{ name: 'test', kind: 'assert', code: 'true' }],
          failToPass: ['test'],
          passToPass: [],
        },
      ],
    });
    await ctx.prisma.session.create({
      data: {
        id: '900000000000000001',
        taskId: '11',
        sessionMode: 'stateful',
        state: 'postprocessed',
        actionCount: 2,
        reward: 1,
        f2pCount: 1,
        f2pTotal: 1,
        p2pCount: 1,
        p2pTotal: 1,
        rewardDetail: [{ name: 'adds', group: 'f2p', passed: true, status: 'success', detail: '' }],
        actions: {
          create: [
            {
              seq: 2,
              content: 'print(add(1, 2))',
              code: 'print(add(1, 2))',
              observation: '3\nexit code 0',
              status: 'ok',
              returnCode: 0,
              durationMs: 3,
            },
            {
              seq: 1,
              content: 'def add(a, b): return a + b',
              code: 'def add(a, b): return a + b',
              observation: 'exit code 0',
              status: 'ok',
              returnCode: 0,
              durationMs: 4,
            },
          ],
        },
      },
    });
    await ctx.prisma.session.create({
      data: {
        id: '900000000000000002',
        taskId: '12',
        sessionMode: 'fresh',
        errorCount: 1,
        events: {
          create: { level: 'error', route: '/process_action', message: 'content: expected a string' },
        },
      },
    });
  });
  afterAll(async () => {
    await close?.();
    await database?.drop();
  });

  it('lists tasks with their test counts, filtered by source or searched by name or instance_hash', async () => {
    const caller = createCaller(trpcContext(ctx));
    const all = await caller.tasks.list({});
    expect(
      all.items.map((task) => [task.id, task.name, task.f2pTotal, task.p2pTotal, task.sessionCount]),
    ).toEqual([
      ['11', 'add two numbers', 1, 1, 1],
      ['12', 'echo', 1, 0, 1],
    ]);
    expect((await caller.tasks.list({ source: 'autoeval' })).items.map((task) => task.id)).toEqual(['12']);
    expect((await caller.tasks.list({ search: 'ADD' })).items.map((task) => task.id)).toEqual(['11']);
    expect((await caller.tasks.list({ search: '12' })).items.map((task) => task.id)).toEqual(['12']);
    // What is typed is found as typed: as LIKE wildcards, these would match "add two numbers" and "echo".
    expect((await caller.tasks.list({ search: 'add_two' })).items).toEqual([]);
    expect((await caller.tasks.list({ search: 'e%o' })).items).toEqual([]);

    const first = await caller.tasks.list({ limit: 1 });
    expect(first.items.map((task) => task.id)).toEqual(['11']);
    const second = await caller.tasks.list({ limit: 1, cursor: first.nextCursor ?? undefined });
    expect(second.items.map((task) => task.id)).toEqual(['12']);
    expect(second.nextCursor).toBeNull();
  });

  it('shows one task with its tests and settings, and NOT_FOUND for an unknown instance_hash', async () => {
    const caller = createCaller(trpcContext(ctx));
    const task = await caller.tasks.byId({ id: '11' });
    expect(task.tests.map((test) => test.name)).toEqual(['adds', 'runs']);
    expect(task.failToPass).toEqual(['adds']);
    expect(task.settings.reward).toBe('f2p');
    expect(task).not.toHaveProperty('_count');
    await expect(caller.tasks.byId({ id: '404' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    } satisfies Partial<TRPCError>);
  });

  it('lists sessions newest first with filters', async () => {
    const caller = createCaller(trpcContext(ctx));
    const all = await caller.sessions.list({});
    expect(all.items.map((session) => session.id)).toEqual(['900000000000000002', '900000000000000001']);
    expect(all.items[1]?.task.name).toBe('add two numbers');
    expect((await caller.sessions.list({ hasErrors: true })).items.map((s) => s.id)).toEqual([
      '900000000000000002',
    ]);
    expect((await caller.sessions.list({ rewarded: true })).items.map((s) => s.id)).toEqual([
      '900000000000000001',
    ]);
    expect((await caller.sessions.list({ state: 'active' })).items.map((s) => s.id)).toEqual([
      '900000000000000002',
    ]);
    expect((await caller.sessions.list({ taskId: '11' })).items.map((s) => s.id)).toEqual([
      '900000000000000001',
    ]);
  });

  it('shows one session with its actions in order, its observations, reward and errors', async () => {
    const caller = createCaller(trpcContext(ctx));
    const session = await caller.sessions.byId({ id: '900000000000000001' });
    expect(session.actions.map((action) => [action.seq, action.observation])).toEqual([
      [1, 'exit code 0'],
      [2, '3\nexit code 0'],
    ]);
    expect(session.reward).toBe(1);
    expect(session.rewardDetail?.[0]).toMatchObject({ name: 'adds', passed: true });
    const failing = await caller.sessions.byId({ id: '900000000000000002' });
    expect(failing.events).toEqual([expect.objectContaining({ level: 'error', route: '/process_action' })]);
    await expect(caller.sessions.byId({ id: '1' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it("pages a long session's actions and cuts their texts, with one action readable whole up to its own cap", async () => {
    const long = 'x'.repeat(50) + 'é'.repeat(30);
    await ctx.prisma.session.create({
      data: {
        id: '900000000000000003',
        taskId: '11',
        sessionMode: 'stateful',
        actionCount: 7,
        actions: {
          create: Array.from({ length: 7 }, (_, index) => ({
            seq: index + 1,
            content: index === 2 ? long : `print(${index + 1})`,
            code: index === 2 ? long : `print(${index + 1})`,
            observation: index === 2 ? long : `${index + 1}\nexit code 0`,
            status: 'ok',
            returnCode: 0,
            durationMs: 1,
          })),
        },
      },
    });
    const caller = createCaller(
      trpcContext({
        ...ctx,
        env: {
          ...ctx.env,
          FUSEBOX_DASHBOARD_ACTIONS_PAGE: 3,
          FUSEBOX_DASHBOARD_PREVIEW_CHARS: 20,
          FUSEBOX_DASHBOARD_ACTION_MAX_CHARS: 60,
        },
      }),
    );
    const session = await caller.sessions.byId({ id: '900000000000000003' });
    expect(session.actions.map((action) => action.seq)).toEqual([1, 2, 3]);
    expect(session.actionsNextCursor).toBe(3);
    expect(session.actionPreviewChars).toBe(20);
    const cut = session.actions[2]!;
    expect([cut.content, cut.code, cut.observation]).toEqual([
      'x'.repeat(20),
      'x'.repeat(20),
      'x'.repeat(20),
    ]);
    // Sizes are the whole texts' bytes: 50 one-byte and 30 two-byte characters.
    expect([cut.truncated, cut.contentBytes, cut.codeBytes, cut.observationBytes]).toEqual([
      true,
      110,
      110,
      110,
    ]);
    expect(session.actions[0]).toMatchObject({ content: 'print(1)', truncated: false, contentBytes: 8 });

    const second = await caller.sessions.actions({ id: '900000000000000003', cursor: 3 });
    expect(second.items.map((action) => action.seq)).toEqual([4, 5, 6]);
    const last = await caller.sessions.actions({ id: '900000000000000003', cursor: second.nextCursor });
    expect(last).toMatchObject({ items: [{ seq: 7 }], nextCursor: null });

    // Whole, up to FUSEBOX_DASHBOARD_ACTION_MAX_CHARS (60 of the 80 characters here), and cut in characters.
    const whole = await caller.sessions.action({ id: '900000000000000003', seq: 3 });
    expect(whole).toMatchObject({ content: long.slice(0, 60), truncated: true, maxChars: 60 });
    const short = await caller.sessions.action({ id: '900000000000000003', seq: 1 });
    expect(short).toMatchObject({ content: 'print(1)', truncated: false });
    await expect(caller.sessions.action({ id: '900000000000000003', seq: 8 })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'session 900000000000000003 has no action 8',
    });
    await expect(caller.sessions.actions({ id: '404', cursor: 0 })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(caller.sessions.action({ id: '900000000000000003', seq: 0 })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
  });
});
