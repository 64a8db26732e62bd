import type { Executor } from '@fusebox/local-sandbox/executor';
import { createCaller } from '@fusebox/api-router';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { LANGUAGES } from '@fusebox/sandbox-client/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServerExecutor } from '../src/sandbox-executor';
import { trpcContext } from '../src/trpc-context';
import { openTestServices } from './router-context';

describe('languages.list (the dashboard)', () => {
  let database: TestDatabase;
  let opened: Awaited<ReturnType<typeof openTestServices>>;
  let executor: Executor;

  beforeAll(async () => {
    database = await createTestDatabase();
    opened = await openTestServices(database, { FUSEBOX_EXECUTOR_CONCURRENCY: '1' });
    executor = await createServerExecutor(opened.services.env);
  });
  afterAll(async () => {
    await executor?.close();
    await opened?.close();
    await database?.drop();
  });

  it("lists every language as the server's executor runs it", async () => {
    const caller = createCaller(trpcContext({ ...opened.services, executor }));
    const languages = await caller.languages.list();
    expect(languages.map((row) => row.language)).toEqual([...LANGUAGES]);
    expect(languages.find((row) => row.language === 'python')?.version).toMatch(/^Python 3\./);
    expect(languages.find((row) => row.language === 'swift')).toMatchObject({
      available: false,
      version: null,
    });
  });

  it('lists none where the server has no local executor', async () => {
    const caller = createCaller(trpcContext(opened.services));
    expect(await caller.languages.list()).toEqual([]);
  });
});
