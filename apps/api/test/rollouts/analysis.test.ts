import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDump } from '@fusebox/rollouts';
import { dumpLine, writeDump } from '@fusebox/testing/rollout-dump';
import { createCaller } from '@fusebox/api-router';
import { trpcContext } from '../../src/trpc-context';
import { type RouterContext, createRouterContext } from '../router-context';

const OTHER_PROMPT = 'user\nAnother question\nassistant\n';
const SHORT = 'assistant\n#### 42';
/** A call whose run never finished: verl's sandbox tool answers `no stdout here`, a tool error. */
const TIMED_OUT = 'assistant\n<tool_call>{}</tool_call>\ntool\nno stdout here\n\nassistant\n#### ?';

describe('the rollout analysis router', () => {
  let context: RouterContext;
  let caller: RouterContext['caller'];
  let runId: string;

  beforeAll(async () => {
    context = await createRouterContext();
    ({ caller } = context);
    // Step 1: a math group (scores 0 and 1: a signal) and a code group (both 1: none). Step 2: both uniform.
    const dir = await writeDump({
      '1.jsonl': [
        dumpLine({ score: 0, data_source: 'math', len_penalty: 0.5 }),
        dumpLine({ score: 1, data_source: 'math', output: SHORT, len_penalty: 1.5 }),
        dumpLine({ score: 1, data_source: 'code', input: OTHER_PROMPT }),
        dumpLine({ score: 1, data_source: 'code', input: OTHER_PROMPT, output: SHORT }),
      ],
      '2.jsonl': [
        dumpLine({ step: 2, score: 0, data_source: 'math', output: SHORT }),
        dumpLine({ step: 2, score: 0, data_source: 'math', output: SHORT }),
        dumpLine({ step: 2, score: 1, data_source: 'code', input: OTHER_PROMPT, output: TIMED_OUT }),
      ],
    });
    runId = (await importDump(context.opened.sql, { dir, name: 'analysis-run' })).run.id;
  });
  afterAll(() => context?.close());

  it('charts any metric per step, split by data_source', async () => {
    const turns = await caller.rolloutAnalysis.metricSteps({ runId, metric: 'turns' });
    expect(turns.groups).toHaveLength(1);
    // dumpLine's default output has two assistant messages; SHORT has one.
    expect(turns.groups[0]!.steps.map((step) => step.mean)).toEqual([1.5, 4 / 3]);

    const split = await caller.rolloutAnalysis.metricSteps({
      runId,
      metric: 'tool_calls',
      splitBy: 'data_source',
    });
    expect(split.steps).toEqual([1, 2]);
    const math = split.groups.find((group) => group.name === 'math')!;
    expect(math.samples).toBe(4);
    expect(math.steps.map((step) => step.mean)).toEqual([0.5, 0]);

    const errors = await caller.rolloutAnalysis.metricSteps({ runId, metric: 'tool_errors' });
    expect(errors.groups[0]!.steps.map((step) => step.mean)).toEqual([0, 1 / 3]);

    const extra = await caller.rolloutAnalysis.metricSteps({ runId, metric: 'extra:len_penalty' });
    expect(extra.groups[0]!.steps[0]).toMatchObject({ samples: 4, counted: 2, mean: 1, median: 1 });
  });

  it('refuses a metric it does not know, naming the ones it does', async () => {
    const refused = caller.rolloutAnalysis.metricSteps({ runId, metric: 'lenght' });
    await expect(refused).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(refused).rejects.toThrow(
      /unknown metric .*lenght.*: use score, response_chars, tool_calls, tool_errors, turns or extra:FIELD/,
    );
  });

  it('sorts and bounds a step by turns and by a numeric extra field', async () => {
    const byPenalty = await caller.rollouts.samples({
      runId,
      step: 1,
      sort: 'field_desc',
      sortField: 'len_penalty',
    });
    expect(byPenalty.items.map((item) => item.line)).toEqual([2, 1, 3, 4]);
    const oneTurn = await caller.rollouts.samples({ runId, step: 1, turnsMax: 1 });
    expect(oneTurn.items.map((item) => [item.line, item.turns])).toEqual([
      [2, 1],
      [4, 1],
    ]);
  });

  it('counts GRPO groups whose rewards are all equal, per step, and lists them', async () => {
    expect(await caller.rolloutAnalysis.groupSteps({ runId })).toEqual([
      { step: 1, groups: 2, uniform: 1, uniformSamples: 2 },
      // A group of one sample has no spread to speak of: it is not counted as uniform.
      { step: 2, groups: 2, uniform: 1, uniformSamples: 2 },
    ]);
    const uniform = await caller.rolloutAnalysis.groups({ runId, uniform: true });
    expect(uniform.items.map((group) => [group.step, group.firstLine, group.samples, group.min])).toEqual([
      [1, 3, 2, 1],
      [2, 1, 2, 0],
    ]);
    expect(uniform.items[0]!.prompt).toContain('Another question');
  });

  it("shows one group's samples side by side", async () => {
    const [first] = (await caller.rolloutAnalysis.groups({ runId, step: 1 })).items;
    const group = await caller.rolloutAnalysis.group({ runId, step: 1, promptHash: first!.promptHash });
    expect(group.uniform).toBe(false);
    expect(group.samples.map((sample) => [sample.line, sample.score, sample.turns])).toEqual([
      [1, 0, 2],
      [2, 1, 1],
    ]);
    await expect(
      caller.rolloutAnalysis.group({ runId, step: 9, promptHash: first!.promptHash }),
    ).rejects.toThrow(/no sample of prompt [0-9a-f]{16} at step 9/);
  });

  it('exports a filtered step whole, page by page in the list order', async () => {
    const page = await caller.rolloutAnalysis.exportPage({ runId, step: 1, scoreMin: 1, sort: 'length_asc' });
    expect(page.nextCursor).toBeNull();
    expect(page.items.map((item) => [item.line, item.output.length])).toEqual([
      [2, SHORT.length],
      [4, SHORT.length],
      [3, String(dumpLine().output).length],
    ]);
    expect(page.items[0]).toMatchObject({ score: 1, gts: '42', extras: { data_source: 'math' } });
  });

  it('cuts an export at FUSEBOX_DASHBOARD_EXPORT_MAX_SAMPLES and says where the next part starts', async () => {
    const capped = createCaller(
      trpcContext({
        ...context.services,
        env: { ...context.services.env, FUSEBOX_DASHBOARD_EXPORT_MAX_SAMPLES: 2 },
      }),
    );
    const list = { runId, step: 1, sort: 'line' } as const;
    const first = await capped.rolloutAnalysis.exportPage(list);
    expect(first.items.map((item) => item.line)).toEqual([1, 2]);
    expect(first).toMatchObject({ nextCursor: null, nextPart: 2, maxSamples: 2 });
    const second = await capped.rolloutAnalysis.exportPage({ ...list, start: 2 });
    expect(second.items.map((item) => item.line)).toEqual([3, 4]);
    expect(second).toMatchObject({ nextCursor: null, nextPart: null });
    // A cursor past its part's cap is refused, naming the setting, rather than read.
    await expect(capped.rolloutAnalysis.exportPage({ ...list, cursor: 2 })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringContaining('FUSEBOX_DASHBOARD_EXPORT_MAX_SAMPLES') as string,
    });
  });

  it('histograms any metric of one step: a bucket per value when few, else 20 of equal width', async () => {
    const turns = await caller.rolloutAnalysis.metricHistogram({ runId, step: 1, metric: 'turns' });
    expect(turns).toMatchObject({ samples: 4, missing: 0 });
    expect(turns.buckets).toEqual([
      { lo: 1, hi: 1, count: 2 },
      { lo: 2, hi: 2, count: 2 },
    ]);
    const penalty = await caller.rolloutAnalysis.metricHistogram({
      runId,
      step: 1,
      metric: 'extra:len_penalty',
    });
    expect(penalty).toMatchObject({ samples: 4, missing: 2 });
    expect(penalty.buckets.map((bucket) => [bucket.lo, bucket.count])).toEqual([
      [0.5, 1],
      [1.5, 1],
    ]);

    const dir = await writeDump({
      '1.jsonl': Array.from({ length: 14 }, (_, index) => dumpLine({ score: index })),
    });
    const spread = (await importDump(context.opened.sql, { dir, name: 'histogram-run' })).run.id;
    const binned = await caller.rolloutAnalysis.metricHistogram({ runId: spread, step: 1, metric: 'score' });
    expect(binned.buckets).toHaveLength(20);
    expect(binned.buckets[0]).toEqual({ lo: 0, hi: 0.65, count: 1 });
    // The greatest value counts in the last bucket, not past it.
    expect(binned.buckets.at(-1)).toMatchObject({ hi: 13, count: 1 });
    expect(binned.buckets.reduce((sum, bucket) => sum + bucket.count, 0)).toBe(14);
    const empty = await caller.rolloutAnalysis.metricHistogram({ runId, step: 9, metric: 'score' });
    expect(empty).toMatchObject({ samples: 0, buckets: [] });
  });
});
