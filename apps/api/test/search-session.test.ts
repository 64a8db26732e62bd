import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { PrismaClient } from '@fusebox/db/client';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, runCli, startServer } from './serve-process';

const CLIENT = fileURLToPath(new URL('./python/verl_swedev_client.py', import.meta.url));

interface EpisodeResult {
  /** Read from the line as digits: a 63-bit sid does not survive JSON.parse as a number. */
  sid: string;
  observations: string[];
  reward: number;
}

async function file(name: string, lines: unknown[]): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'fusebox-search-session-')), name);
  await writeFile(path, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
  return path;
}

describe("a search task through verl's swedev client (the seed's HTTPRewardManager flow)", () => {
  let database: TestDatabase;
  let server: RunningServer;
  let reader: PrismaClient;
  beforeAll(async () => {
    database = await createTestDatabase();
    const corpus = await file('wiki.jsonl', [
      { id: '1', contents: '"Paris"\nParis is the capital and largest city of France.' },
      { id: '2', contents: '"Seine"\nThe Seine is a river that flows through Paris.' },
      { id: '3', contents: '"Lyon"\nLyon is the third-largest city of France.' },
    ]);
    expect((await runCli(['corpus', 'import', corpus], database.env)).code).toBe(0);
    // HotpotQA's shape (with the instance_hash verl's data carries), and Search-R1's with an F1 rule.
    const tasks = await file('hotpot.jsonl', [
      {
        instance_hash: '4242',
        _id: 'q1',
        question: 'What is the capital of France?',
        answer: 'Paris',
        type: 'bridge',
      },
      {
        instance_hash: '4243',
        id: 'q2',
        question: 'Which river flows through Paris?',
        golden_answers: ['the Seine river'],
        reward: 'f1',
      },
    ]);
    const imported = await runCli(['tasks', 'import', tasks], database.env);
    expect(imported.code, imported.stderr).toBe(0);
    server = await startServer(database.env);
    reader = database.reader();
  });
  afterAll(async () => {
    await reader?.$disconnect();
    await server?.stop();
    await database?.drop();
  });

  it('answers queries in either tag convention with passages, notices the answer, and rewards it', async () => {
    const episodes = [
      {
        instance_id: 4242,
        actions: ['I will search. <search>capital of France</search>', 'so <answer>Paris</answer>'],
      },
      {
        instance_id: 4243,
        actions: [
          '<|begin_of_query|>river flows through Paris<|end_of_query|>',
          'The answer is \\boxed{Seine}',
        ],
      },
      { instance_id: 4242, actions: ['I think it is Lyon.', '<answer>Lyon</answer>'] },
      // Longer than FUSEBOX_RETRIEVE_MAX_QUERY_CHARS (4096): the model is told, and may ask again.
      { instance_id: 4242, actions: [`<search>${'capital '.repeat(600)}</search>`] },
    ];
    const { stdout, stderr } = await promisify(execFile)(
      '/usr/bin/python3',
      [CLIENT, server.url, JSON.stringify(episodes)],
      {
        timeout: 120_000,
      },
    );
    expect(stderr).toBe('');
    const [searchR1, r1Searcher, wrong, tooLong] = stdout
      .trim()
      .split('\n')
      .map((line) => ({ ...(JSON.parse(line) as EpisodeResult), sid: /"sid": (\d+)/.exec(line)![1]! }));

    expect(searchR1!.observations[0]).toMatch(
      /^<information>Doc 1 \(Title: "Paris"\) Paris is the capital and largest city of France\.\nDoc 2 /,
    );
    expect(searchR1!.observations[1]).toBe('');
    expect(searchR1!.reward).toBe(1);

    expect(r1Searcher!.observations[0]).toMatch(/^<\|begin_of_documents\|>\nDoc 1 \(Title: "Seine"\)/);
    expect(r1Searcher!.observations[0]).toMatch(/\n<\|end_of_documents\|>$/);
    // F1 of "seine" against "the seine river": precision 1, recall 1/2.
    expect(r1Searcher!.reward).toBeCloseTo(2 / 3, 6);

    expect(wrong!.observations[0]).toMatch(/^No query found\. Search with <search>/);
    expect(wrong!.reward).toBe(0);

    expect(tooLong!.observations[0]).toBe(
      'Search failed: a query may have at most 4096 characters (FUSEBOX_RETRIEVE_MAX_QUERY_CHARS); this one has 4799',
    );

    const actions = await reader.action.findMany({
      where: { sessionId: searchR1!.sid },
      orderBy: { seq: 'asc' },
      select: { seq: true, code: true, status: true },
    });
    expect(actions).toEqual([
      { seq: 1, code: 'capital of France', status: 'search' },
      { seq: 2, code: '', status: 'answer' },
    ]);
    const session = await reader.session.findUnique({
      where: { id: wrong!.sid },
      select: { reward: true, rewardDetail: true },
    });
    expect(session).toMatchObject({
      reward: 0,
      rewardDetail: [{ name: 'answer', passed: false, status: 'wrong_answer' }],
    });
  });
});
