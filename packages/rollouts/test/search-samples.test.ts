import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database } from '@fusebox/db/database';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { dumpLine, writeDump } from '@fusebox/testing/rollout-dump';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDump } from '../src/import-dump';
import { type SampleQuery, parseSampleQuery } from '../src/sample-query';
import { sampleConditions } from '../src/sample-filter';
import { type SearchOptions, searchSamples } from '../src/search-samples';

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

  const parse = (text: string): SampleQuery =>
    parseSampleQuery(text, { knownFields: new Set(['acc', 'pred']) })!;
  const search = (
    text: string,
    options: Partial<
      Pick<SearchOptions, 'rowsPerRead' | 'step' | 'countCap' | 'checkBudget' | 'where' | 'prefixTerms'>
    >,
  ) =>
    searchSamples(opened.prisma, parse(text), {
      runId,
      countCap: 5,
      checkBudget: 4,
      prefixTerms: 50,
      ...options,
    }).then(({ matches, budgetSpent }) => ({
      at: matches.map((match) => [match.step, match.line]),
      budgetSpent,
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
      budgetSpent: true,
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

  it('reads each word as the start of a word, ignoring case', async () => {
    expect(await search('ANS', {})).toEqual(await search('answer', {}));
    expect((await search('answ od ste', { countCap: 10 })).at).toEqual(
      (await search('answer odd step', { countCap: 10 })).at,
    );
    expect((await search('lat', {})).at).toEqual([[3, 5]]);
    // A word is not found by its middle, nor by a longer word.
    expect((await search('nswer', {})).at).toEqual([]);
    expect((await search('answers', {})).at).toEqual([]);
  });

  it('says which prefixes began more index words than it searched', async () => {
    // `s` begins `said`, `step`, `system`…: with room for one, the first in byte order is searched alone.
    const cut = await searchSamples(opened.prisma, parse('s answer'), {
      runId,
      countCap: 50,
      checkBudget: 4,
      prefixTerms: 1,
    });
    expect(cut.prefixesCut).toEqual(['s']);
    expect(cut.matches).toEqual([{ step: 3, line: 5 }]);
    const whole = await searchSamples(opened.prisma, parse('s answer'), {
      runId,
      countCap: 50,
      checkBudget: 4,
      prefixTerms: 50,
    });
    expect(whole.prefixesCut).toEqual([]);
    expect(whole.matches).toHaveLength(13);
  });

  it('keeps only the samples that meet the filters, in order, within the check budget', async () => {
    // Scores are 0, 1, 2, 3 down each step's first four lines; the late line scores 1.
    const scoreZero = sampleConditions({ scoreMax: 0, fields: [] });
    expect(await search('answer', { where: scoreZero, checkBudget: 100 })).toEqual({
      at: [
        [1, 1],
        [2, 1],
        [3, 1],
      ],
      budgetSpent: false,
    });
    expect(await search('answer', { where: scoreZero, checkBudget: 4 })).toEqual({
      at: [[1, 1]],
      budgetSpent: true,
    });
    const fromFewRows = await search('answer', { where: scoreZero, checkBudget: 100, rowsPerRead: 1 });
    expect(fromFewRows.at).toHaveLength(3);
    expect(
      (await search('"print(x)"', { where: sampleConditions({ scoreMin: 2, fields: [] }), checkBudget: 100 }))
        .at,
    ).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    const late = sampleConditions({ fields: [{ name: 'acc', equals: 'true' }], scoreMin: 1, scoreMax: 1 });
    expect((await search('odd', { where: late, checkBudget: 100 })).at).toEqual([
      [1, 2],
      [2, 2],
      [3, 2],
      [3, 5],
    ]);
  });

  describe('phrases', () => {
    let phraseRunId: string;
    const toolCall = (code: string) =>
      `<tool_call>\n${JSON.stringify({ name: 'code_interpreter', arguments: { code } })}\n</tool_call>`;
    // Every line has the words of `"print(total_3)"` and of `"the answer"`; the comment says which phrases.
    const outputs = [
      // 1: print(total_3) verbatim, in a tool call's code after a line `total_3 = 6 * 7` (an escaped \n).
      `assistant\n${toolCall('total_3 = 6 * 7\nprint(total_3)')}\ntool\n42\nthe answer is 42`,
      // 2: print(total_3) in other cases only.
      `assistant\n${toolCall('PRINT(Total_3)')}\ntool\nNameError\nanswer: the same`,
      // 3: the words, but total_30 and not total_3.
      `assistant\n${toolCall('print(total_30)')}\ntool\n7\nThe Answer, 7`,
      // 4: the words, apart.
      'assistant\nprint ( total_3 ) gives the number; answer 7',
      // 5: print(total_3) in the input only (below); Traceback in other cases.
      'assistant\nTraceback: ZeroDivisionError: division by zero\nprint total 3, the answer',
      // 6: a phrase with letters beyond ASCII, in upper case; the words, apart.
      'assistant\nRÉSUMÉ: Straße; print, total 3, answer the',
    ];

    beforeAll(async () => {
      const lines = outputs.map((output, index) =>
        dumpLine({
          output,
          input: `user\nWhat does ${index === 4 ? 'print(total_3)' : 'print'} show in total? Give an answer.\n`,
        }),
      );
      phraseRunId = (
        await importDump(opened.sql, { dir: await writeDump({ '1.jsonl': lines }), name: 'phrase-run' })
      ).run.id;
    });

    const lines = (text: string) =>
      searchSamples(opened.prisma, parse(text), {
        runId: phraseRunId,
        countCap: 20,
        checkBudget: 100,
        prefixTerms: 50,
      }).then(({ matches }) => matches.map((match) => match.line));

    it('finds a phrase with punctuation verbatim, in other cases, and in the input', async () => {
      expect(await lines('"print(total_3)"')).toEqual([1, 2, 5]);
      expect(await lines('"PRINT(TOTAL_3)"')).toEqual([1, 2, 5]);
      // Typed with punctuation, unquoted, it is a phrase too.
      expect(await lines('print(total_3)')).toEqual([1, 2, 5]);
      expect(await lines('"zerodivisionerror: division"')).toEqual([5]);
      expect(await lines('NOT "print(total_3)"')).toEqual([3, 4, 6]);
    });

    it('finds a phrase with letters beyond ASCII in other cases', async () => {
      expect(await lines('"résumé: straße"')).toEqual([6]);
      expect(await lines('"RÉSUMÉ: STRAßE"')).toEqual([6]);
    });

    it("finds a phrase across the lines of a tool call's code", async () => {
      // The code sits in the text as JSON: its newline is the two characters \n.
      expect(await lines('"= 6 * 7\\nprint(total_3)"')).toEqual([1]);
    });

    it('keeps only the samples whose common words stand together', async () => {
      expect(await lines('"the answer"')).toEqual([1, 3, 5]);
      expect(await lines('the answer')).toEqual([1, 2, 3, 4, 5, 6]);
    });
  });

  describe('with AND, OR, NOT and fields', () => {
    const all = (text: string, options: Parameters<typeof search>[1] = {}) =>
      search(text, { countCap: 20, checkBudget: 100, ...options }).then(({ at }) => at);
    const evenLines = [
      [1, 1],
      [1, 3],
      [2, 1],
      [2, 3],
      [3, 1],
      [3, 3],
    ];

    it('keeps the samples without a word, through the index', async () => {
      expect(await all('answer NOT odd')).toEqual(evenLines);
      expect(await all('answer -odd')).toEqual(evenLines);
      expect(await all('answer NOT odd', { rowsPerRead: 1 })).toEqual(evenLines);
      // No word is needed by every match: every sample is a candidate.
      expect(await all('NOT odd')).toEqual(evenLines);
      expect(await all('NOT answer')).toEqual([]);
      expect((await all('NOT late')).length).toBe(12);
    });

    it('takes either side of an OR, grouped by parentheses', async () => {
      expect((await all('odd OR print')).length).toBe(13);
      expect(await all('late OR (even score>=2)')).toEqual([
        [1, 3],
        [2, 3],
        [3, 3],
        [3, 5],
      ]);
      expect(await all('(late OR even) AND NOT print')).toEqual([[3, 5]]);
      expect(await all('late OR "print(x)" step:2')).toEqual([
        [2, 1],
        [2, 3],
        [3, 5],
      ]);
    });

    it('compares builtin numbers and extra fields, alone or with text', async () => {
      // Scores are 0, 1, 2, 3 down each step's first four lines; the late line scores 1.
      expect(await all('score<=0')).toEqual([
        [1, 1],
        [2, 1],
        [3, 1],
      ]);
      expect(await all('score>=2 "print(x)"')).toEqual([
        [1, 3],
        [2, 3],
        [3, 3],
      ]);
      expect(await all('step>=3 odd')).toEqual([
        [3, 2],
        [3, 4],
        [3, 5],
      ]);
      expect((await all('acc:true')).length).toBe(13);
      expect(await all('NOT acc:true')).toEqual([]);
      // A sample without the field does not hold a condition on it, so NOT holds.
      expect((await all('NOT extra.missing:1')).length).toBe(13);
      expect((await all('pred!=42')).length).toBe(0);
      expect(await all('pred=42 score>2.5')).toEqual([
        [1, 4],
        [2, 4],
        [3, 4],
      ]);
    });

    it('spends its budget on candidates and says so', async () => {
      // Every sample is a candidate: the first five are step 1's four and step 2's first.
      const cut = await search('NOT odd', { countCap: 20, checkBudget: 5 });
      expect(cut).toEqual({
        at: [
          [1, 1],
          [1, 3],
          [2, 1],
        ],
        budgetSpent: true,
      });
    });
  });

  describe('a text value with *', () => {
    const sources = ['openai/GSM8K', 'math_500', 'math-500', '100%'];
    let patternRunId: string;
    beforeAll(async () => {
      const lines = sources.map((source) =>
        dumpLine({ output: 'assistant\nthe answer', data_source: source }),
      );
      lines.push(dumpLine({ output: 'assistant\nthe answer, with no source' }));
      patternRunId = (
        await importDump(opened.sql, { dir: await writeDump({ '1.jsonl': lines }), name: 'pattern-run' })
      ).run.id;
    });
    const lines = (text: string, where?: ReturnType<typeof sampleConditions>) =>
      searchSamples(opened.prisma, parseSampleQuery(text, { knownFields: new Set(['data_source']) })!, {
        runId: patternRunId,
        countCap: 20,
        checkBudget: 100,
        prefixTerms: 50,
        where,
      }).then(({ matches }) => matches.map((match) => match.line));

    it('is a pattern that ignores case in the query box, in which % and _ are themselves', async () => {
      expect(await lines('data_source:*gsm*')).toEqual([1]);
      expect(await lines('data_source:MATH_*')).toEqual([2]);
      expect(await lines('data_source:*%')).toEqual([4]);
      expect(await lines('data_source:math*')).toEqual([2, 3]);
      // Without a star the value is exact; a sample without the field is not one of them.
      expect(await lines('data_source:math')).toEqual([]);
      expect(await lines('data_source!=math*')).toEqual([1, 4, 5]);
      // Quoted, a star is a star.
      expect(await lines('data_source:"math*"')).toEqual([]);
    });

    it('finds a part anywhere with ~, ignoring case, with % and _ as themselves', async () => {
      expect(await lines('data_source~gsm')).toEqual([1]);
      expect(await lines('data_source~H_5')).toEqual([2]);
      expect(await lines('data_source~500')).toEqual([2, 3]);
      expect(await lines('data_source~%')).toEqual([4]);
      expect(await lines('NOT data_source~math')).toEqual([1, 4, 5]);
    });

    it('is the same pattern in the filter bar', async () => {
      const where = sampleConditions({ fields: [{ name: 'data_source', equals: '*-5*' }] });
      expect(await lines('answer', where)).toEqual([3]);
    });
  });
});
