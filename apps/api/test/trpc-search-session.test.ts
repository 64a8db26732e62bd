import { createCaller } from '@fusebox/api-router';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../src/services';
import { trpcContext } from '../src/trpc-context';
import { openTestServices } from './router-context';

/** What a search turn stores in action.search (packages/agent-sessions/src/search-session.ts). */
const SEARCHED = {
  tags: 'r1-searcher',
  documents: [{ id: 'p-1', score: 1.25, contents: '"Paris"\nParis is the capital of France.' }],
};

describe("a search session's timeline over tRPC (sessions.byId)", () => {
  let database: TestDatabase;
  let ctx: Services;
  let close: () => Promise<void>;

  beforeAll(async () => {
    database = await createTestDatabase();
    ({ services: ctx, close } = await openTestServices(database));
    await ctx.prisma.task.create({
      data: {
        id: '31',
        name: 'capital',
        source: 'fusebox',
        prompt: 'What is the capital of France?',
        language: 'search',
        sessionMode: 'fresh',
        failToPass: [],
        passToPass: [],
        metadata: { search: { golden: ['Paris'], corpus: 'wiki', rule: 'f1' } },
      },
    });
    const action = { observation: '', returnCode: null, durationMs: 1 };
    await ctx.prisma.session.create({
      data: {
        id: '910000000000000001',
        taskId: '31',
        sessionMode: 'fresh',
        reward: 1,
        // A reward stored before its parts were kept: the summary alone.
        rewardDetail: [
          { name: 'answer', group: 'f2p', passed: true, status: 'success', detail: 'answer "Paris"; f1 1' },
        ],
        actions: {
          create: [
            {
              ...action,
              seq: 1,
              content: '<|begin_of_query|>capital of France<|end_of_query|>',
              code: 'capital of France',
              status: 'search',
              search: SEARCHED,
            },
            // Stored before action.search: the query is all there is.
            { ...action, seq: 2, content: '<search>France</search>', code: 'France', status: 'search' },
            { ...action, seq: 3, content: '<answer>Paris</answer>', code: '', status: 'answer' },
          ],
        },
      },
    });
  });
  afterAll(async () => {
    await close?.();
    await database?.drop();
  });

  it("returns the task's question and search spec, each action's passages, and older rows as they are", async () => {
    const session = await createCaller(trpcContext(ctx)).sessions.byId({ id: '910000000000000001' });
    expect(session.task).toEqual({
      name: 'capital',
      language: 'search',
      prompt: 'What is the capital of France?',
    });
    expect(session.search).toMatchObject({ golden: ['Paris'], corpus: 'wiki', rule: 'f1', topk: 3 });
    expect(session.actions.map((action) => action.search)).toEqual([SEARCHED, null, null]);
    expect(session.rewardDetail?.[0]?.search).toBeUndefined();
  });
});
