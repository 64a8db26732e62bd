import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database } from '@fusebox/db/database';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { dumpLine, writeDump } from '@fusebox/testing/rollout-dump';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDump } from '../src/import-dump';
import { parseSearchQuery } from '../src/search-query';
import { searchSamples } from '../src/search-samples';

// The search reads the index a few hundred rows at a time, in step order, and stops once it has enough. A small
// `rowsPerRead` makes these few samples take several reads, some of which cut a step short: all must agree.
describe('searchSamples', () => {
  let database: TestDatabase;
  let opened: Database;
  let runId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    opened = await database.open();
    const files: Record<string, Record<string, unknown>[]> = {};
    for (const step of [3, 1, 2]) {
      files[`${step}.jsonl`] = Array.from({ length: 4 }, (_, index) =>
        dumpLine({
          step,
          score: index,
          output: `assistant\nthe answer ${index % 2 === 0 ? 'is even: print(x)' : 'is odd'} at step ${step}`,
        }),
      );
    }
    const dir = await writeDump(files);
    runId = (await importDump(opened.sql, { dir, name: 'search-run' })).run.id;
    // Step 3 grows while training writes it: the new lines are a second piece, with index rows of their own.
    await appendFile(
      join(dir, '3.jsonl'),
      `${JSON.stringify(dumpLine({ step: 3, output: 'assistant\nthe answer is odd, said late' }))}\n`,
    );
    await importDump(opened.sql, { dir, name: 'search-run' });
  });
  afterAll(async () => {
    await opened?.close();
    await database?.drop();
  });

  const search = (text: string, options: { rowsPerRead?: number; step?: number; countCap?: number }) =>
    searchSamples(opened.prisma, parseSearchQuery(text), {
      runId,
      countCap: 5,
      phraseCandidates: 4,
      ...options,
    }).then(({ matches, phraseBudgetSpent }) => ({
      at: matches.map((match) => [match.step, match.line]),
      phraseBudgetSpent,
    }));

  it('finds a common word in step and line order however many index rows it reads at once', async () => {
    const fromIndex = await search('answer', {});
    for (const rowsPerRead of [1, 2, 3]) expect(await search('answer', { rowsPerRead })).toEqual(fromIndex);
    expect(fromIndex.at).toEqual([
      [1, 1],
      [1, 2],
      [1, 3],
      [1, 4],
      [2, 1],
      [2, 2],
    ]);
  });

  it('needs every word on the same sample, and reads a step written in two pieces as one', async () => {
    // Odd lines say "at step N"; the late line of step 3 has "odd" and "answer" but no "step".
    const oddAtStep = [
      [1, 2],
      [1, 4],
      [2, 2],
      [2, 4],
      [3, 2],
      [3, 4],
    ];
    for (const rowsPerRead of [1, 2, 500])
      expect((await search('odd answer step', { rowsPerRead, countCap: 10 })).at).toEqual(oddAtStep);
    expect((await search('odd answer', { step: 3, countCap: 10 })).at).toEqual([
      [3, 2],
      [3, 4],
      [3, 5],
    ]);
    expect((await search('late', {})).at).toEqual([[3, 5]]);
    expect((await search('late even', {})).at).toEqual([]);
  });

  it('checks phrases in the first candidates in order, and says when it stopped there', async () => {
    const fromIndex = await search('"print(x)"', {});
    const fromFewRows = await search('"print(x)"', { rowsPerRead: 1 });
    // The even lines have the words and the phrase: the first four of them are checked, of six.
    expect(fromIndex).toEqual({
      at: [
        [1, 1],
        [1, 3],
        [2, 1],
        [2, 3],
      ],
      phraseBudgetSpent: true,
    });
    expect(fromFewRows).toEqual(fromIndex);
  });

  it('searches one step alone', async () => {
    const fromIndex = await search('odd', { step: 3 });
    expect(fromIndex.at).toEqual([
      [3, 2],
      [3, 4],
      [3, 5],
    ]);
    expect(await search('odd', { step: 3, rowsPerRead: 1 })).toEqual(fromIndex);
  });
});
