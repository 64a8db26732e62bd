import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RouterContext, createRouterContext } from '../router-context';
import { importDump } from '../../src/rollouts/import-dump';
import { parseSearchQuery } from '../../src/rollouts/search-query';
import { searchSamples } from '../../src/rollouts/search-samples';
import { dumpLine, writeDump } from './dump-fixture';

// The search reads every candidate from the index when there are few, and only the first steps when the words
// are common. A small `allCandidates` sends these few samples down the second path: both must agree.
describe('searchSamples', () => {
  let context: RouterContext;
  let runId: string;

  beforeAll(async () => {
    context = await createRouterContext();
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
    runId = (await importDump(context.opened.sql, { dir, name: 'search-run' })).run.id;
  });
  afterAll(() => context?.close());

  const search = (text: string, options: { allCandidates?: number; step?: number; countCap?: number }) =>
    searchSamples(context.services.prisma, parseSearchQuery(text), {
      runId,
      countCap: 5,
      phraseCandidates: 4,
      ...options,
    }).then(({ matches, phraseBudgetSpent }) => ({
      at: matches.map((match) => [match.step, match.line]),
      phraseBudgetSpent,
    }));

  it('finds a common word in step and line order whichever way it reads the candidates', async () => {
    const fromIndex = await search('answer', {});
    const fromFirstSteps = await search('answer', { allCandidates: 3 });
    expect(fromIndex.at).toEqual([
      [1, 1],
      [1, 2],
      [1, 3],
      [1, 4],
      [2, 1],
      [2, 2],
    ]);
    expect(fromFirstSteps).toEqual(fromIndex);
  });

  it('checks phrases in the first candidates in order, and says when it stopped there', async () => {
    const fromIndex = await search('"print(x)"', {});
    const fromFirstSteps = await search('"print(x)"', { allCandidates: 3 });
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
    expect(fromFirstSteps).toEqual(fromIndex);
  });

  it('searches one step alone', async () => {
    const fromIndex = await search('odd', { step: 3 });
    expect(fromIndex.at).toEqual([
      [3, 2],
      [3, 4],
    ]);
    expect(await search('odd', { step: 3, allCandidates: 1 })).toEqual(fromIndex);
  });
});
