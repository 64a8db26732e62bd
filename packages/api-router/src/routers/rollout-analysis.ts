import { Prisma } from '@fusebox/db/prisma';
import { pgInt } from '@fusebox/db/bounded-numbers';
import { TRPCError, type TRPCRouterRecord } from '@trpc/server';
import { z } from 'zod';
import {
  metricSql,
  sampleFilterSchema,
  sampleMetricSchema,
  sampleOrder,
  sampleWhere,
} from '@fusebox/rollouts';
import { EXPORTED_SAMPLE_COLUMNS, EXPORT_PAGE, type ExportedSampleRow } from '../exported-samples';
import { publicProcedure } from '../init';
import { CHANGED_LATELY_S, watchChanges } from '../watch-changes';
import { assertRun } from './rollouts';

/** A step's histogram of a metric has one bucket per value when it has at most this many (turns, 0/1 fields). */
const MAX_EXACT_BUCKETS = 12;
/** Buckets of equal width otherwise. */
const HISTOGRAM_BINS = 20;
/** GRPO groups per page of their list. */
const GROUP_PAGE = 100;

const fieldName = z.string().min(1).max(200);

interface MetricStepRow {
  group: string | null;
  step: number;
  samples: number;
  /** Samples with a value for the metric (an extra field may be missing or not a number). */
  counted: number;
  mean: number | null;
  p10: number | null;
  median: number | null;
  p90: number | null;
}

/**
 * What the run page charts and what the GRPO view reads: any metric over steps (mean and spread), split by a
 * text field, the groups of samples of one prompt at one step, and a filtered list exported whole.
 */
export const rolloutAnalysisRouter = {
  /**
   * A run's import progress over SSE: its steps, samples and last step, sent when they change (the first at
   * once), so the browser, the run page and the group list refresh as `--watch` imports what training writes;
   * and whether it changed lately (`CHANGED_LATELY_S`), when a page's first event may already be news to it.
   */
  runChanges: publicProcedure.input(z.object({ runId: z.uuid() })).subscription(async function* ({
    ctx,
    input,
    signal,
  }) {
    await assertRun(ctx, input.runId);
    yield* watchChanges(
      async () => {
        const [progress] = await ctx.prisma.$queryRaw<
          { steps: number; samples: number; lastStep: number | null; changedLately: boolean }[]
        >`
          SELECT count(*)::int AS "steps", coalesce(sum("lines_read" - "lines_rejected"), 0)::int AS "samples",
            max("step") AS "lastStep",
            coalesce(max("updated_at") > now() - ${CHANGED_LATELY_S} * interval '1 second', false) AS "changedLately"
          FROM "rollout_file" WHERE "run_id" = ${input.runId}::uuid`;
        return { version: `${progress!.steps}:${progress!.samples}:${progress!.lastStep}`, value: progress! };
      },
      ctx.limits.liveIntervalMs,
      signal,
    );
  }),

  /**
   * Per step, the mean, median and 10th–90th percentiles of a metric (score, response length, tool calls,
   * turns, or a numeric extra field), optionally split by a text extra field such as `data_source`: one line
   * per value, the commonest `limits.chartSplitGroups` of them (FUSEBOX_DASHBOARD_CHART_GROUPS, 8 by default:
   * more lines than that cannot be told apart).
   */
  metricSteps: publicProcedure
    .input(z.object({ runId: z.uuid(), metric: sampleMetricSchema, splitBy: fieldName.nullish() }))
    .query(async ({ ctx, input }) => {
      await assertRun(ctx, input.runId);
      const value = metricSql(input.metric);
      const group = input.splitBy ? Prisma.sql`"extras" ->> ${input.splitBy}` : Prisma.sql`NULL::text`;
      const rows = await ctx.prisma.$queryRaw<MetricStepRow[]>`
        SELECT "group", "step", count(*)::int AS "samples", count("value")::int AS "counted",
          avg("value") AS "mean",
          percentile_cont(0.1) WITHIN GROUP (ORDER BY "value") AS "p10",
          percentile_cont(0.5) WITHIN GROUP (ORDER BY "value") AS "median",
          percentile_cont(0.9) WITHIN GROUP (ORDER BY "value") AS "p90"
        FROM (SELECT "step", ${value}::double precision AS "value", ${group} AS "group"
          FROM "rollout_sample" WHERE "run_id" = ${input.runId}::uuid) metric
        GROUP BY "group", "step" ORDER BY "step"`;
      const sizes = new Map<string | null, number>();
      for (const row of rows) sizes.set(row.group, (sizes.get(row.group) ?? 0) + row.samples);
      const shown = [...sizes.entries()].sort((a, b) => b[1] - a[1]).slice(0, ctx.limits.chartSplitGroups);
      const steps = [...new Set(rows.map((row) => row.step))].sort((a, b) => a - b);
      return {
        metric: input.metric,
        splitBy: input.splitBy ?? null,
        steps,
        /** Values of the split field beyond the commonest `chartSplitGroups`, left out of the chart. */
        hiddenGroups: sizes.size - shown.length,
        groups: shown.map(([name, samples]) => {
          const byStep = new Map(rows.filter((row) => row.group === name).map((row) => [row.step, row]));
          return {
            name,
            samples,
            steps: steps.map((step) => {
              const row = byStep.get(step);
              return {
                step,
                samples: row?.samples ?? 0,
                counted: row?.counted ?? 0,
                mean: row?.mean ?? null,
                p10: row?.p10 ?? null,
                median: row?.median ?? null,
                p90: row?.p90 ?? null,
              };
            }),
          };
        }),
      };
    }),

  /**
   * One step's distribution of a metric (any the charts take: score, response length, tool calls, turns, a
   * numeric extra field): one bucket per value when there are few (MAX_EXACT_BUCKETS), else HISTOGRAM_BINS of
   * equal width between the step's least and greatest value. `missing` counts samples without a value.
   */
  metricHistogram: publicProcedure
    .input(z.object({ runId: z.uuid(), step: pgInt(), metric: sampleMetricSchema }))
    .query(async ({ ctx, input }) => {
      await assertRun(ctx, input.runId);
      const values = Prisma.sql`SELECT ${metricSql(input.metric)}::double precision AS "value" FROM "rollout_sample"
        WHERE "run_id" = ${input.runId}::uuid AND "step" = ${input.step}`;
      const [range] = await ctx.prisma.$queryRaw<
        {
          samples: number;
          counted: number;
          lo: number | null;
          hi: number | null;
          distinct: number[] | null;
        }[]
      >`
        SELECT count(*)::int AS "samples", count("value")::int AS "counted", min("value") AS "lo", max("value") AS "hi",
          (SELECT array_agg("value" ORDER BY "value") FROM (SELECT DISTINCT "value" FROM (${values}) v
            WHERE "value" IS NOT NULL ORDER BY "value" LIMIT ${MAX_EXACT_BUCKETS + 1}) d) AS "distinct"
        FROM (${values}) v`;
      const { samples, counted, lo, hi } = range!;
      const distinct = range!.distinct ?? [];
      const base = { metric: input.metric, step: input.step, samples, missing: samples - counted };
      if (lo === null || hi === null) return { ...base, buckets: [] };
      if (distinct.length <= MAX_EXACT_BUCKETS) {
        const counts = await ctx.prisma.$queryRaw<{ value: number; count: number }[]>`
          SELECT "value", count(*)::int AS "count" FROM (${values}) v WHERE "value" IS NOT NULL GROUP BY 1`;
        const of = new Map(counts.map((row) => [row.value, row.count]));
        return {
          ...base,
          buckets: distinct.map((value) => ({ lo: value, hi: value, count: of.get(value) ?? 0 })),
        };
      }
      const counts = await ctx.prisma.$queryRaw<{ bucket: number; count: number }[]>`
        SELECT least(width_bucket("value", ${lo}, ${hi}, ${HISTOGRAM_BINS}), ${HISTOGRAM_BINS}) - 1 AS "bucket",
          count(*)::int AS "count"
        FROM (${values}) v WHERE "value" IS NOT NULL GROUP BY 1`;
      const of = new Map(counts.map((row) => [Number(row.bucket), row.count]));
      return {
        ...base,
        buckets: Array.from({ length: HISTOGRAM_BINS }, (_, index) => ({
          lo: lo + ((hi - lo) * index) / HISTOGRAM_BINS,
          hi: lo + ((hi - lo) * (index + 1)) / HISTOGRAM_BINS,
          count: of.get(index) ?? 0,
        })),
      };
    }),

  /**
   * Per step, its GRPO groups (samples that share a prompt) and how many have every reward equal: such a
   * group's advantages are all zero, so it teaches the policy nothing.
   */
  groupSteps: publicProcedure.input(z.object({ runId: z.uuid() })).query(async ({ ctx, input }) => {
    await assertRun(ctx, input.runId);
    return ctx.prisma.$queryRaw<{ step: number; groups: number; uniform: number; uniformSamples: number }[]>`
      SELECT "step", count(*)::int AS "groups",
        count(*) FILTER (WHERE "uniform")::int AS "uniform",
        coalesce(sum("samples") FILTER (WHERE "uniform"), 0)::int AS "uniformSamples"
      FROM (SELECT "step", count(*) AS "samples",
          count(*) > 1 AND count("score") = count(*) AND min("score") = max("score") AS "uniform"
        FROM "rollout_sample" WHERE "run_id" = ${input.runId}::uuid GROUP BY "step", "prompt_hash") grouped
      GROUP BY "step" ORDER BY "step"`;
  }),

  /**
   * One page of a run's GRPO groups, by step and first line: with `uniform`, only those whose rewards are all
   * equal (no learning signal). Each carries its prompt's start, to tell the groups apart.
   */
  groups: publicProcedure
    .input(
      z.object({
        runId: z.uuid(),
        step: pgInt().optional(),
        uniform: z.boolean().default(false),
        cursor: pgInt(0).nullish(),
      }),
    )
    .query(async ({ ctx, input }) => {
      await assertRun(ctx, input.runId);
      const offset = input.cursor ?? 0;
      const step = input.step === undefined ? Prisma.sql`TRUE` : Prisma.sql`"step" = ${input.step}`;
      const uniform = input.uniform
        ? Prisma.sql`count(*) > 1 AND count("score") = count(*) AND min("score") = max("score")`
        : Prisma.sql`TRUE`;
      const rows = await ctx.prisma.$queryRaw<
        {
          step: number;
          promptHash: string;
          samples: number;
          firstLine: number;
          min: number | null;
          max: number | null;
          mean: number | null;
          prompt: string;
        }[]
      >`
        SELECT g."step", g."promptHash", g."samples", g."firstLine", g."min", g."max", g."mean",
          left(substr(s."input", strpos(s."input", E'\nuser\n') + 6), 160) AS "prompt"
        FROM (SELECT "step", "prompt_hash" AS "promptHash", count(*)::int AS "samples", min("line") AS "firstLine",
            min("score") AS "min", max("score") AS "max", avg("score") AS "mean"
          FROM "rollout_sample" WHERE "run_id" = ${input.runId}::uuid AND ${step}
          GROUP BY "step", "prompt_hash" HAVING ${uniform}
          ORDER BY "step", min("line") LIMIT ${GROUP_PAGE + 1} OFFSET ${offset}) g
        JOIN "rollout_sample" s ON s."run_id" = ${input.runId}::uuid AND s."step" = g."step" AND s."line" = g."firstLine"
        ORDER BY g."step", g."firstLine"`;
      const items = rows.slice(0, GROUP_PAGE);
      return { items, nextCursor: rows.length > GROUP_PAGE ? offset + GROUP_PAGE : null };
    }),

  /** The samples of one prompt at one step, side by side: a GRPO group, as the advantage saw it. */
  group: publicProcedure
    .input(z.object({ runId: z.uuid(), step: pgInt(), promptHash: z.string().regex(/^[0-9a-f]{16}$/) }))
    .query(async ({ ctx, input }) => {
      const run = await assertRun(ctx, input.runId);
      // verl's `rollout.n` is 5–16 in practice; FUSEBOX_DASHBOARD_GROUP_MAX_SAMPLES (64) bounds a larger one.
      const max = ctx.limits.groupMaxSamples;
      const samples = await ctx.prisma.rolloutSample.findMany({
        where: { runId: input.runId, step: input.step, promptHash: input.promptHash },
        orderBy: { line: 'asc' },
        take: max + 1,
        select: {
          line: true,
          requestId: true,
          score: true,
          input: true,
          output: true,
          extras: true,
          responseChars: true,
          toolCalls: true,
          toolErrors: true,
          turns: true,
        },
      });
      if (samples.length === 0) {
        throw new TRPCError({
          code: 'NOT_FOUND',
          message: `no sample of prompt ${input.promptHash} at step ${input.step} of this run`,
        });
      }
      const scores = samples.map((sample) => sample.score);
      return {
        run,
        step: input.step,
        input: samples[0]!.input,
        uniform: samples.length > 1 && scores.every((score) => score !== null && score === scores[0]),
        more: samples.length > max,
        samples: samples.slice(0, max).map(({ input: _input, extras, ...sample }) => ({
          ...sample,
          extras: extras as Record<string, unknown>,
        })),
      };
    }),

  /**
   * One page of a step's samples under the browser's filters and sort, whole (input, output, ground truth,
   * score, extras): the browser joins the pages into a JSONL or CSV download. One download (a part, from
   * `start`) holds at most `limits.exportMaxSamples` (FUSEBOX_DASHBOARD_EXPORT_MAX_SAMPLES): at its end
   * `nextCursor` is null and `nextPart` names where the next part starts, so the browser never builds more.
   */
  exportPage: publicProcedure
    .input(sampleFilterSchema.extend({ cursor: pgInt(0).nullish(), start: pgInt(0).nullish() }))
    .query(async ({ ctx, input }) => {
      await assertRun(ctx, input.runId);
      const start = input.start ?? 0;
      const offset = input.cursor ?? start;
      const max = ctx.limits.exportMaxSamples;
      const end = start + max;
      if (offset < start || offset >= end) {
        throw new TRPCError({
          code: 'BAD_REQUEST',
          message: `cursor: ${offset} is outside the part that starts at ${start} (${max} samples, FUSEBOX_DASHBOARD_EXPORT_MAX_SAMPLES)`,
        });
      }
      const take = Math.min(EXPORT_PAGE, end - offset);
      const rows = await ctx.prisma.$queryRaw<ExportedSampleRow[]>`
        SELECT ${EXPORTED_SAMPLE_COLUMNS}
        FROM "rollout_sample" s WHERE ${sampleWhere(input)}
        ORDER BY ${sampleOrder(input)} LIMIT ${take + 1} OFFSET ${offset}`;
      const more = rows.length > take;
      const next = offset + take;
      return {
        items: rows.slice(0, take),
        nextCursor: more && next < end ? next : null,
        /** Where the next part starts when this part ended at its cap with samples left; else null. */
        nextPart: more && next >= end ? next : null,
        maxSamples: max,
      };
    }),
} satisfies TRPCRouterRecord;
