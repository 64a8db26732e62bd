import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RouterContext, createRouterContext } from '../router-context';
import { importDump } from '@fusebox/rollouts';
import { dumpLine, writeDump } from '@fusebox/testing/rollout-dump';

describe('the rollouts router', () => {
  let context: RouterContext;
  let caller: RouterContext['caller'];
  let runId: string;

  beforeAll(async () => {
    context = await createRouterContext();
    ({ caller } = context);
    const dir = await writeDump({
      '1.jsonl': [
        dumpLine({ score: 0.25, acc: false, pred: '41' }),
        dumpLine({ score: 10, acc: true }),
        dumpLine({
          score: 9,
          acc: true,
          output: 'assistant\nA ZeroDivisionError happened in print(total_pay)',
        }),
        dumpLine({ score: null, acc: false, pred: 'none' }),
      ],
      '2.jsonl': [
        dumpLine({ step: 2, score: 1 }),
        dumpLine({ step: 2, score: 0, input: 'user\nAnother question\nassistant\n' }),
      ],
    });
    const summary = await importDump(context.opened.sql, { dir, name: 'router-run' });
    runId = summary.run.id;
  });
  afterAll(() => context?.close());

  it('lists runs with their steps and samples', async () => {
    const runs = await caller.rollouts.runs();
    expect(runs).toEqual([
      expect.objectContaining({ name: 'router-run', steps: 2, samples: 6, lastStep: 2 }),
    ]);
    // The browser's step selector: the steps alone, read from the import's bookkeeping.
    expect(await caller.rollouts.stepList({ runId })).toEqual({
      run: { id: runId, name: 'router-run' },
      steps: [{ step: 1 }, { step: 2 }],
    });
  });

  it('gives score statistics and a histogram per step', async () => {
    const { steps, buckets } = await caller.rollouts.steps({ runId });
    expect(steps.map((step) => [step.step, step.samples, step.scored, step.min, step.max])).toEqual([
      [1, 4, 3, 0.25, 10],
      [2, 2, 2, 0, 1],
    ]);
    expect(steps[0]!.mean).toBeCloseTo((0.25 + 10 + 9) / 3);
    expect(buckets.map((bucket) => bucket.label)).toEqual(['0', '0.25', '1', '9', '10']);
    expect(steps[0]!.histogram).toEqual([0, 1, 0, 1, 1]);
  });

  it('sorts scores as numbers, not strings (10 above 9)', async () => {
    const page = await caller.rollouts.samples({ runId, step: 1, sort: 'score_desc' });
    expect(page.items.map((item) => item.score)).toEqual([10, 9, 0.25, null]);
    expect(page.total).toBe(4);
    expect(page.items[0]!.prompt).toMatch(/^What is 6 \* 7\?/);
    expect(page.items[2]!.answer).toContain('#### 42');
  });

  it('filters by a numeric score range and by extra fields', async () => {
    const range = await caller.rollouts.samples({ runId, step: 1, scoreMin: 1, scoreMax: 9.5 });
    expect(range.items.map((item) => item.score)).toEqual([9]);
    const accurate = await caller.rollouts.samples({ runId, step: 1, fields: [{ name: 'acc', min: 1 }] });
    expect(accurate.items.map((item) => item.line)).toEqual([2, 3]);
    const predicted = await caller.rollouts.samples({
      runId,
      step: 1,
      fields: [{ name: 'pred', equals: 'none' }],
    });
    expect(predicted.items.map((item) => item.line)).toEqual([4]);
  });

  it('pages with a cursor', async () => {
    const first = await caller.rollouts.samples({ runId, step: 1, limit: 3 });
    expect(first.items).toHaveLength(3);
    const second = await caller.rollouts.samples({ runId, step: 1, limit: 3, cursor: first.nextCursor });
    expect(second.items.map((item) => item.line)).toEqual([4]);
    expect(second.nextCursor).toBeNull();
  });

  it('lists extra fields with kinds and values', async () => {
    const fields = await caller.rollouts.fields({ runId, step: 1 });
    expect(fields.map((field) => [field.name, field.kinds.sort()])).toEqual([
      ['acc', ['boolean']],
      ['pred', ['string']],
    ]);
  });

  it('returns a sample with its neighbours under the filters, the steps around it and its prompt elsewhere', async () => {
    const sample = await caller.rollouts.sample({ runId, step: 1, line: 3, filter: { sort: 'score_desc' } });
    expect(sample.output).toContain('ZeroDivisionError');
    expect(sample.position).toEqual({ index: 2, total: 4, prev: 2, next: 1 });
    expect(sample.prevStep).toBeNull();
    expect(sample.nextStep).toBe(2);
    expect(sample.samePrompt.map((other) => [other.step, other.line])).toEqual([
      [1, 1],
      [1, 2],
      [1, 4],
      [2, 1],
    ]);
    const first = await caller.rollouts.firstSample({ runId, step: 2, sort: 'score_asc' });
    expect(first.line).toBe(2);
  });

  it('answers NOT_FOUND for an unknown run or sample', async () => {
    await expect(caller.rollouts.sample({ runId, step: 1, line: 99 })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(
      caller.rollouts.steps({ runId: '0190d6c2-0000-7000-8000-000000000000' }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('searches all steps by whole words, case-insensitively, and marks the matches', async () => {
    const result = await caller.rollouts.search({ runId, q: 'zerodivisionerror' });
    expect(result.items.map((item) => [item.step, item.line])).toEqual([[1, 3]]);
    const marked = result.items[0]!.snippet.filter((segment) => segment.match).map((segment) => segment.text);
    expect(marked).toEqual(['ZeroDivisionError']);
    const everywhere = await caller.rollouts.search({ runId, q: 'multiply' });
    expect(everywhere.total).toBe(5);
  });

  it('matches text typed with punctuation verbatim, and words by their start', async () => {
    const exact = await caller.rollouts.search({ runId, q: 'print(total_pay)' });
    expect(exact.items.map((item) => item.line)).toEqual([3]);
    expect(exact.items[0]!.snippet.filter((s) => s.match).map((s) => s.text)).toEqual(['print(total_pay)']);
    const prefix = await caller.rollouts.search({ runId, q: 'ZeroDiv' });
    expect(prefix.items.map((item) => [item.step, item.line])).toEqual([[1, 3]]);
    expect(prefix.items[0]!.snippet.filter((s) => s.match).map((s) => s.text)).toEqual(['ZeroDivisionError']);
    expect(prefix.prefixesCut).toEqual([]);
    const middle = await caller.rollouts.search({ runId, q: 'divisionerror' });
    expect(middle.total).toBe(0);
    const oneStep = await caller.rollouts.search({ runId, q: 'question', step: 2 });
    expect(oneStep.items.map((item) => [item.step, item.line, item.where])).toEqual([[2, 2, 'input']]);
    await expect(caller.rollouts.search({ runId, q: '(( ))' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
  });

  it('searches under the filter bar: score range and extra fields', async () => {
    // Every sample says "multiply"; of the scored ones only step 2's second scores 0 (a null score is no 0).
    const scoreZero = await caller.rollouts.search({ runId, q: 'multiply', scoreMax: 0 });
    expect(scoreZero.items.map((item) => [item.step, item.line, item.score])).toEqual([[2, 2, 0]]);
    expect(scoreZero.checkedIn).toBeNull();
    const wrong = await caller.rollouts.search({
      runId,
      q: 'multiply',
      fields: [{ name: 'acc', equals: 'false' }],
    });
    expect(wrong.items.map((item) => [item.step, item.line])).toEqual([
      [1, 1],
      [1, 4],
    ]);
    const both = await caller.rollouts.search({ runId, q: 'zerodiv', scoreMin: 9, scoreMax: 9 });
    expect(both.items.map((item) => [item.step, item.line])).toEqual([[1, 3]]);
    expect((await caller.rollouts.search({ runId, q: 'zerodiv', scoreMin: 10 })).total).toBe(0);
    await expect(
      caller.rollouts.search({ runId, q: 'multiply', fields: [{ name: 'acc' }] }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('sorts and filters by the response length and its tool calls, in the list and in search', async () => {
    // Step 1 line 3 answers in one short sentence with no tool call; the others make one call each.
    const byCalls = await caller.rollouts.samples({ runId, step: 1, sort: 'tool_calls_asc' });
    expect(byCalls.items.map((item) => [item.line, item.toolCalls])).toEqual([
      [3, 0],
      [1, 1],
      [2, 1],
      [4, 1],
    ]);
    const longest = await caller.rollouts.samples({ runId, step: 1, sort: 'length_desc' });
    expect(longest.items.map((item) => item.line)).toEqual([1, 2, 4, 3]);
    expect(longest.items[3]!.responseChars).toBe(
      'assistant\nA ZeroDivisionError happened in print(total_pay)'.length,
    );
    const noCalls = await caller.rollouts.samples({ runId, step: 1, toolCallsMax: 0 });
    expect(noCalls.items.map((item) => item.line)).toEqual([3]);
    const short = await caller.rollouts.samples({ runId, step: 1, charsMax: 100 });
    expect(short.items.map((item) => item.line)).toEqual([3]);
    expect((await caller.rollouts.samples({ runId, step: 1, charsMin: 101 })).total).toBe(3);
    expect((await caller.rollouts.search({ runId, q: 'zerodiv', toolCallsMin: 1 })).total).toBe(0);
    expect((await caller.rollouts.search({ runId, q: 'zerodiv', toolCallsMax: 0 })).total).toBe(1);
    await expect(caller.rollouts.samples({ runId, step: 1, charsMin: -1 })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
  });
});
