import type { PrismaClient } from '@fusebox/db/client';
import { Prisma } from '@fusebox/db/prisma';
import { TRPCError, type TRPCRouterRecord } from '@trpc/server';
import { z } from 'zod';
import {
  joinMatches,
  matchKey,
  matchRanges,
  hasConditions,
  hasPhrase,
  parseSampleQuery,
  rolloutRuns,
  runFieldNames,
  SampleQueryError,
  sampleConditions,
  sampleFilterSchema,
  sampleOrder,
  sampleWhere,
  searchSamples,
  shownText,
  snippet,
} from '@fusebox/rollouts';
import { pgInt } from '@fusebox/db/bounded-numbers';
import { publicProcedure } from '../init';
import { CHANGED_LATELY_S, watchChanges } from '../watch-changes';
import { EXPORTED_SAMPLE_COLUMNS, EXPORT_PAGE, type ExportedSampleRow } from '../exported-samples';

/** Score histograms use one bucket per value when a run has at most this many distinct scores (0/1 rewards). */
const MAX_EXACT_BUCKETS = 12;
const HISTOGRAM_BINS = 10;
/** Search counts stop here: "1000+ matches" is as useful as an exact count, and much cheaper. */
const SEARCH_COUNT_CAP = 1000;
/**
 * A phrase is checked in the text of at most this many samples that contain all its words (in step order):
 * checking "print(x" in every sample with "print" and "x" would read the whole run.
 */
const PHRASE_CANDIDATES = 2000;
/** Filters alone read no text, only each candidate's row: ten times as many are checked for the same time. */
const FILTER_CANDIDATES = 20_000;
/** A query word stands for at most this many index words it begins: `a` would otherwise read most of the index. */
const PREFIX_TERMS = 50;

const runInput = z.object({ runId: z.uuid() });
const sampleKey = z.object({ runId: z.uuid(), step: pgInt(), line: pgInt() });

/** What a sample-list row needs: short previews, never the whole text. */
interface SampleListRow {
  id: string;
  line: number;
  score: number | null;
  requestId: string | null;
  extras: Record<string, unknown>;
  prompt: string;
  answer: string;
  chars: number;
  /** The response alone, in characters, the `<tool_call>`s and assistant turns in it: what the list sorts by. */
  responseChars: number;
  toolCalls: number;
  /** Tool responses in it that show a traceback or a time limit. */
  toolErrors: number;
  turns: number;
}

export async function assertRun(ctx: { prisma: PrismaClient }, runId: string) {
  const run = await ctx.prisma.rolloutRun.findUnique({
    where: { id: runId },
    select: { id: true, name: true },
  });
  if (!run) throw new TRPCError({ code: 'NOT_FOUND', message: `no rollout run has id ${runId}` });
  return run;
}

/** The run's steps that have samples, ascending, from the import's per-file bookkeeping (no sample is read). */
async function runSteps(prisma: PrismaClient, runId: string): Promise<{ step: number }[]> {
  const files = await prisma.rolloutFile.findMany({
    where: { runId },
    select: { step: true, linesRead: true, linesRejected: true },
    orderBy: { step: 'asc' },
  });
  return files.filter((file) => file.linesRead > file.linesRejected).map((file) => ({ step: file.step }));
}

/** What a search is asked: the query, the filter bar's conditions, and a step to keep to (none: all). */
const searchInput = sampleFilterSchema
  .pick({
    scoreMin: true,
    scoreMax: true,
    charsMin: true,
    charsMax: true,
    toolCallsMin: true,
    toolCallsMax: true,
    turnsMin: true,
    turnsMax: true,
    fields: true,
  })
  .extend({
    runId: z.uuid(),
    q: z.string().min(1).max(500),
    step: pgInt().optional(),
  });

/**
 * A search's matches in step and line order, at most SEARCH_COUNT_CAP + 1 of them, with what its hits mark and
 * how far it looked. A query the parser refuses, or one with nothing to search, is a BAD_REQUEST naming why.
 */
async function findMatches(ctx: { prisma: PrismaClient }, input: z.infer<typeof searchInput>) {
  await assertRun(ctx, input.runId);
  let query;
  try {
    // Only a comparison can name a field: plain text (and every page of its results) reads no field names.
    const knownFields = /[:=~<>]/.test(input.q)
      ? await runFieldNames(ctx.prisma, input.runId)
      : new Set<string>();
    query = parseSampleQuery(input.q, { knownFields });
  } catch (error) {
    if (!(error instanceof SampleQueryError)) throw error;
    throw new TRPCError({ code: 'BAD_REQUEST', message: error.message });
  }
  if (query === null) {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: 'type a word (letters or digits), a "phrase" or a field condition such as score<=0 to search',
    });
  }
  const filtered = hasConditions(input);
  const checkBudget = hasPhrase(query) ? PHRASE_CANDIDATES : FILTER_CANDIDATES;
  const found = await searchSamples(ctx.prisma, query, {
    runId: input.runId,
    ...(input.step === undefined ? {} : { step: input.step }),
    ...(filtered ? { where: sampleConditions(input) } : {}),
    countCap: SEARCH_COUNT_CAP,
    checkBudget,
    prefixTerms: PREFIX_TERMS,
  });
  return { ...found, shown: shownText(query), checkBudget };
}

/** Rollout runs imported by `fusebox rollouts import`: steps, samples, full-text search. */
export const rolloutsRouter = {
  runs: publicProcedure.query(({ ctx }) => rolloutRuns(ctx.prisma)),

  /**
   * Over SSE, a version of the run list (how many runs, the latest import, the lines read in all), read every
   * FUSEBOX_DASHBOARD_LIVE_INTERVAL_MS and sent when it changes: a run imported, growing or deleted elsewhere
   * shows in an open run list without a reload. One row per step file is summed, no sample is read.
   */
  runsChanges: publicProcedure.subscription(async function* ({ ctx, signal }) {
    yield* watchChanges(
      async () => {
        const [list] = await ctx.prisma.$queryRaw<
          { runs: number; updated: Date | null; lines: bigint; changedLately: boolean }[]
        >`
          SELECT (SELECT count(*)::int FROM "rollout_run") AS "runs",
            (SELECT max("updated_at") FROM "rollout_run") AS "updated",
            (SELECT coalesce(sum("lines_read"), 0)::bigint FROM "rollout_file") AS "lines",
            coalesce((SELECT max("updated_at") FROM "rollout_file")
              > now() - ${CHANGED_LATELY_S} * interval '1 second', false) AS "changedLately"`;
        const version = `${list!.runs}:${list!.updated?.toISOString() ?? ''}:${list!.lines}`;
        return { version, value: { runs: list!.runs, changedLately: list!.changedLately } };
      },
      ctx.limits.liveIntervalMs,
      signal,
    );
  }),

  /**
   * The run's steps with samples, from the import's own bookkeeping (one row per step file, no sample read):
   * what the browser's step selector needs, without the statistics' scan of every sample.
   */
  stepList: publicProcedure.input(runInput).query(async ({ ctx, input }) => {
    const run = await assertRun(ctx, input.runId);
    return { run, steps: await runSteps(ctx.prisma, input.runId) };
  }),

  /** Score statistics per step, for the chart of score over steps and the step table. */
  steps: publicProcedure.input(runInput).query(async ({ ctx, input }) => {
    const run = await assertRun(ctx, input.runId);
    const [steps, distinct, files] = await Promise.all([
      ctx.prisma.$queryRaw<
        {
          step: number;
          samples: number;
          scored: number;
          mean: number | null;
          min: number | null;
          max: number | null;
          p10: number | null;
          median: number | null;
          p90: number | null;
        }[]
      >`SELECT "step", count(*)::int AS "samples", count("score")::int AS "scored", avg("score") AS "mean",
        min("score") AS "min", max("score") AS "max",
        percentile_cont(0.1) WITHIN GROUP (ORDER BY "score") AS "p10",
        percentile_cont(0.5) WITHIN GROUP (ORDER BY "score") AS "median",
        percentile_cont(0.9) WITHIN GROUP (ORDER BY "score") AS "p90"
      FROM "rollout_sample" WHERE "run_id" = ${input.runId}::uuid GROUP BY "step" ORDER BY "step"`,
      ctx.prisma.$queryRaw<{ score: number }[]>`
      SELECT DISTINCT "score" FROM "rollout_sample"
      WHERE "run_id" = ${input.runId}::uuid AND "score" IS NOT NULL ORDER BY "score" LIMIT ${MAX_EXACT_BUCKETS + 1}`,
      ctx.prisma.rolloutFile.findMany({
        where: { runId: input.runId },
        select: { step: true, name: true, linesRejected: true },
      }),
    ]);
    const lo = Math.min(...steps.map((step) => step.min ?? Infinity));
    const hi = Math.max(...steps.map((step) => step.max ?? -Infinity));
    const exact = distinct.length <= MAX_EXACT_BUCKETS;
    const buckets = exact
      ? distinct.map(({ score }) => ({ label: formatScore(score), lo: score, hi: score }))
      : Array.from({ length: HISTOGRAM_BINS }, (_, index) => {
          const from = lo + ((hi - lo) * index) / HISTOGRAM_BINS;
          const to = lo + ((hi - lo) * (index + 1)) / HISTOGRAM_BINS;
          return { label: `${formatScore(from)}–${formatScore(to)}`, lo: from, hi: to };
        });
    const counts = buckets.length
      ? await ctx.prisma.$queryRaw<{ step: number; bucket: number; count: number }[]>(
          exact
            ? Prisma.sql`SELECT "step", array_position(${distinct.map((row) => row.score)}::double precision[], "score") - 1 AS "bucket",
                count(*)::int AS "count" FROM "rollout_sample"
                WHERE "run_id" = ${input.runId}::uuid AND "score" IS NOT NULL GROUP BY 1, 2`
            : Prisma.sql`SELECT "step", least(width_bucket("score", ${lo}, ${hi}, ${HISTOGRAM_BINS}), ${HISTOGRAM_BINS}) - 1 AS "bucket",
                count(*)::int AS "count" FROM "rollout_sample"
                WHERE "run_id" = ${input.runId}::uuid AND "score" IS NOT NULL GROUP BY 1, 2`,
        )
      : [];
    const histograms = new Map<number, number[]>();
    for (const { step, bucket, count } of counts) {
      const histogram = histograms.get(step) ?? new Array<number>(buckets.length).fill(0);
      histogram[bucket] = (histogram[bucket] ?? 0) + count;
      histograms.set(step, histogram);
    }
    const fileOf = new Map(files.map((file) => [file.step, file]));
    return {
      run,
      buckets,
      steps: steps.map((step) => ({
        ...step,
        histogram: histograms.get(step.step) ?? new Array<number>(buckets.length).fill(0),
        file: fileOf.get(step.step)?.name ?? null,
        rejected: fileOf.get(step.step)?.linesRejected ?? 0,
      })),
    };
  }),

  /** The extra fields of a step's samples (acc, pred, …), with their kinds and commonest values, for filters. */
  fields: publicProcedure
    .input(z.object({ runId: z.uuid(), step: pgInt() }))
    .query(async ({ ctx, input }) => {
      const rows = await ctx.prisma.$queryRaw<{ name: string; kind: string; value: string; count: number }[]>`
        SELECT e."key" AS "name", jsonb_typeof(e."value") AS "kind", e."value" #>> '{}' AS "value",
          count(*)::int AS "count"
        FROM "rollout_sample" s, jsonb_each(s."extras") e
        WHERE s."run_id" = ${input.runId}::uuid AND s."step" = ${input.step}
        GROUP BY 1, 2, 3 ORDER BY 1, 4 DESC`;
      const fields = new Map<
        string,
        { name: string; kinds: string[]; values: { value: string; count: number }[] }
      >();
      for (const row of rows) {
        const field = fields.get(row.name) ?? { name: row.name, kinds: [], values: [] };
        if (!field.kinds.includes(row.kind)) field.kinds.push(row.kind);
        field.values.push({ value: row.value, count: row.count });
        fields.set(row.name, field);
      }
      return [...fields.values()].map((field) => ({
        name: field.name,
        kinds: field.kinds,
        distinct: field.values.length,
        top: field.values.slice(0, 12),
      }));
    }),

  /** One page of a step's samples under the filters, with previews (the question and the answer's end). */
  samples: publicProcedure
    .input(
      sampleFilterSchema.extend({
        cursor: pgInt(0).nullish(),
        limit: z.int().min(1).max(200).default(100),
      }),
    )
    .query(async ({ ctx, input }) => {
      const offset = input.cursor ?? 0;
      // Previews are cut for the page's rows only: computed in the filtered scan, they would read every sample
      // of the step.
      const [rows, [counted]] = await Promise.all([
        ctx.prisma.$queryRaw<SampleListRow[]>`
          SELECT s."id", s."line", s."score", s."request_id" AS "requestId", s."extras",
            left(substr(s."input", strpos(s."input", E'\nuser\n') + 6), 160) AS "prompt",
            right(s."output", 160) AS "answer", length(s."input") + length(s."output") AS "chars",
            s."response_chars" AS "responseChars", s."tool_calls" AS "toolCalls",
            s."tool_errors" AS "toolErrors", s."turns"
          FROM (SELECT "id" FROM "rollout_sample" WHERE ${sampleWhere(input)}
            ORDER BY ${sampleOrder(input)} LIMIT ${input.limit} OFFSET ${offset}) page
          JOIN "rollout_sample" s ON s."id" = page."id"
          ORDER BY ${sampleOrder(input)}`,
        ctx.prisma.$queryRaw<{ total: number }[]>`
          SELECT count(*)::int AS "total" FROM "rollout_sample" WHERE ${sampleWhere(input)}`,
      ]);
      const total = counted?.total ?? 0;
      return { items: rows, total, nextCursor: offset + rows.length < total ? offset + rows.length : null };
    }),

  /** One sample in full, with where it sits among the filtered samples and its prompt's other samples. */
  sample: publicProcedure
    .input(sampleKey.extend({ filter: sampleFilterSchema.omit({ runId: true, step: true }).optional() }))
    .query(async ({ ctx, input }) => {
      const sample = await ctx.prisma.rolloutSample.findUnique({
        where: { runId_step_line: { runId: input.runId, step: input.step, line: input.line } },
        select: {
          id: true,
          step: true,
          line: true,
          requestId: true,
          input: true,
          output: true,
          gts: true,
          score: true,
          extras: true,
          promptHash: true,
          run: { select: { id: true, name: true } },
        },
      });
      if (!sample) {
        throw new TRPCError({
          code: 'NOT_FOUND',
          message: `no sample at step ${input.step}, line ${input.line} of this run`,
        });
      }
      const filter = sampleFilterSchema.parse({ ...input.filter, runId: input.runId, step: input.step });
      const [position] = await ctx.prisma.$queryRaw<
        { index: bigint; total: bigint; prev: number | null; next: number | null }[]
      >`
        WITH ordered AS (
          SELECT "line", row_number() OVER (ORDER BY ${sampleOrder(filter)}) AS "index",
            count(*) OVER () AS "total",
            lag("line") OVER (ORDER BY ${sampleOrder(filter)}) AS "prev",
            lead("line") OVER (ORDER BY ${sampleOrder(filter)}) AS "next"
          FROM "rollout_sample" WHERE ${sampleWhere(filter)}
        )
        SELECT "index", "total", "prev", "next" FROM ordered WHERE "line" = ${input.line}`;
      const [neighbourSteps] = await ctx.prisma.$queryRaw<
        { prevStep: number | null; nextStep: number | null }[]
      >`
        SELECT (SELECT max("step") FROM "rollout_file" WHERE "run_id" = ${input.runId}::uuid AND "step" < ${input.step}) AS "prevStep",
          (SELECT min("step") FROM "rollout_file" WHERE "run_id" = ${input.runId}::uuid AND "step" > ${input.step}) AS "nextStep"`;
      const samePrompt = await ctx.prisma.rolloutSample.findMany({
        where: { runId: input.runId, promptHash: sample.promptHash, NOT: { id: sample.id } },
        orderBy: [{ step: 'asc' }, { line: 'asc' }],
        take: 100,
        select: { step: true, line: true, score: true },
      });
      const extras = sample.extras as Record<string, unknown>;
      return {
        ...sample,
        extras,
        session: await sampleSession(ctx.prisma, extras),
        position: position
          ? {
              index: Number(position.index),
              total: Number(position.total),
              prev: position.prev,
              next: position.next,
            }
          : null,
        prevStep: neighbourSteps?.prevStep ?? null,
        nextStep: neighbourSteps?.nextStep ?? null,
        samePrompt,
      };
    }),

  /** The first sample of a step under the filters, for moving to the next or previous step. */
  firstSample: publicProcedure.input(sampleFilterSchema).query(async ({ ctx, input }) => {
    const [row] = await ctx.prisma.$queryRaw<{ line: number }[]>`
      SELECT "line" FROM "rollout_sample" WHERE ${sampleWhere(input)} ORDER BY ${sampleOrder(input)} LIMIT 1`;
    return { line: row?.line ?? null };
  }),

  /**
   * The query box over every sample, across all steps or one, under the filter bar's score range and fields:
   * words, phrases and field conditions with AND, OR and NOT (sample-query.ts). Words match the words they
   * begin, ignoring case, through the `rollout_term` index; phrases, fields and filters are then checked on those
   * candidates. Each hit carries a snippet with its matches marked.
   */
  search: publicProcedure
    .input(
      searchInput.extend({
        cursor: pgInt(0).nullish(),
        limit: z.int().min(1).max(100).default(50),
      }),
    )
    .query(async ({ ctx, input }) => {
      const { matches, budgetSpent, prefixesCut, shown, checkBudget } = await findMatches(ctx, input);
      const offset = input.cursor ?? 0;
      const page = matches.slice(offset, offset + input.limit);
      const texts = page.length
        ? await ctx.prisma.$queryRaw<
            { step: number; line: number; score: number | null; input: string; output: string }[]
          >`
            SELECT s."step", s."line", s."score", s."input", s."output" FROM "rollout_sample" s ${joinMatches(page)}
            WHERE s."run_id" = ${input.runId}::uuid`
        : [];
      const byKey = new Map(texts.map((text) => [matchKey(text), text]));
      const rows = page.map((match) => byKey.get(matchKey(match))!);
      const count = matches.length;
      return {
        query: shown,
        total: Math.min(count, SEARCH_COUNT_CAP),
        capped: count > SEARCH_COUNT_CAP,
        /** Set when phrases or filters were checked in the first samples that have the words, not in all. */
        checkedIn: budgetSpent ? checkBudget : null,
        /** Query words that begin so many words that only the first PREFIX_TERMS of them were searched. */
        prefixesCut,
        prefixTerms: PREFIX_TERMS,
        items: rows.map((row) => {
          const outputRanges = matchRanges(row.output, shown);
          const where = outputRanges.length > 0 ? 'output' : 'input';
          return {
            step: row.step,
            line: row.line,
            score: row.score,
            where,
            snippet: snippet(row.output, outputRanges) ??
              snippet(row.input, matchRanges(row.input, shown)) ?? [
                { text: row.output.slice(0, 180), match: false },
              ],
          } as const;
        }),
        nextCursor: offset + rows.length < Math.min(count, SEARCH_COUNT_CAP) ? offset + rows.length : null,
      };
    }),

  /**
   * A search's samples whole, a page at a time in step and line order, for the browser to join into a JSONL or
   * CSV download: every match, up to the SEARCH_COUNT_CAP that a search lists (`capped` says when there were
   * more). Each page runs the search again, as a page of the list does.
   */
  exportSearch: publicProcedure
    .input(searchInput.extend({ cursor: pgInt(0).nullish() }))
    .query(async ({ ctx, input }) => {
      const { matches } = await findMatches(ctx, input);
      const listed = matches.slice(0, SEARCH_COUNT_CAP);
      const offset = input.cursor ?? 0;
      const page = listed.slice(offset, offset + EXPORT_PAGE);
      const rows = page.length
        ? await ctx.prisma.$queryRaw<ExportedSampleRow[]>`
            SELECT ${EXPORTED_SAMPLE_COLUMNS} FROM "rollout_sample" s ${joinMatches(page)}
            WHERE s."run_id" = ${input.runId}::uuid`
        : [];
      const byKey = new Map(rows.map((row) => [matchKey(row), row]));
      return {
        items: page.map((match) => byKey.get(matchKey(match))!),
        nextCursor: offset + page.length < listed.length ? offset + page.length : null,
        capped: matches.length > SEARCH_COUNT_CAP,
        maxSamples: SEARCH_COUNT_CAP,
      };
    }),
} satisfies TRPCRouterRecord;

/**
 * The agent session a sample's `sid` extra names, when this Fusebox holds it: a swedev rollout keeps the sid
 * its /start_instance returned, and the session holds every action and the reward's test outcomes.
 */
async function sampleSession(prisma: PrismaClient, extras: Record<string, unknown>) {
  const sid = extras.sid;
  const id = typeof sid === 'number' && Number.isSafeInteger(sid) ? String(sid) : sid;
  if (typeof id !== 'string' || !/^\d{1,20}$/.test(id)) return null;
  return prisma.session.findUnique({
    where: { id },
    select: { id: true, state: true, reward: true, actionCount: true, errorCount: true },
  });
}

function formatScore(score: number): string {
  return Number.isInteger(score) ? String(score) : score.toFixed(2);
}
