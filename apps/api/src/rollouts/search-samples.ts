import type { PrismaClient } from '@fusebox/db/client';
import { Prisma } from '@fusebox/db/prisma';
import type { SearchQuery } from './search-query';

/** A sample that matched, in the order results are listed: by step, then line. */
export interface SearchMatch {
  id: string;
  step: number;
  line: number;
}

export interface SearchOptions {
  runId: string;
  /** Only this step, when set. */
  step?: number;
  /** Matches are counted up to this many, and one more to tell that there are more. */
  countCap: number;
  /** A phrase is checked in the text of at most this many samples that have its words, the first in order. */
  phraseCandidates: number;
  /** Candidates read from the index alone before turning to the first steps. Default ALL_CANDIDATES. */
  allCandidates?: number;
}

export interface SearchResult {
  /** The first `countCap + 1` matches at most, in order. */
  matches: SearchMatch[];
  /** Whether samples with the words were left unchecked for phrases, the budget spent. */
  phraseBudgetSpent: boolean;
}

/**
 * Samples with a word read straight from the GIN index before the search turns to the first steps instead:
 * reading them costs a few milliseconds per thousand, and a word in more samples than this is common enough that
 * its first matches lie in the first steps.
 */
const ALL_CANDIDATES = 20_000;

type Transaction = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

const byStepAndLine = (a: SearchMatch, b: SearchMatch) => a.step - b.step || a.line - b.line;

/** Candidates whose text is checked for phrases per query: the check stops once the count cap is reached. */
const PHRASE_CHUNK = 250;

/**
 * Finds, in step and line order, the first `countCap + 1` samples that contain every word (through the GIN index
 * on `search_terms`) and every phrase (verbatim, ignoring case).
 *
 * Ordering is what costs: the index answers which samples have the words, not in what order, so ordering them
 * visits every one (100,000 rows for `the` in a 100k-sample run). So the candidates are first read from the index
 * alone, up to ALL_CANDIDATES. Fewer than that: they are all there, and are ordered here. More: the word is
 * common, and the candidates read so far, a subset of all, show by which step the first ones needed are reached;
 * only the samples up to that step are then read, through the (run_id, step) b-tree. Phrases are then checked
 * in the candidates' text in order, a chunk at a time, until enough match or the budget is spent.
 */
export async function searchSamples(
  prisma: PrismaClient,
  query: SearchQuery,
  options: SearchOptions,
): Promise<SearchResult> {
  return prisma.$transaction(async (tx) => {
    // Bitmap scans only: an ordered index scan would read (and decompress) the terms of every sample it passes.
    await tx.$executeRaw`SET LOCAL enable_seqscan = off`;
    await tx.$executeRaw`SET LOCAL enable_indexscan = off`;
    const phrased = query.phrases.length > 0;
    // How many of the first candidates the answer needs: the page and its capped count, or the phrases' budget.
    const needed = phrased ? options.phraseCandidates : options.countCap + 1;
    const readable = Math.max(options.allCandidates ?? ALL_CANDIDATES, needed);
    // Comparing run_id as text keeps the planner off the run_id b-tree: every candidate comes from the GIN index.
    const inStep = options.step === undefined ? Prisma.empty : Prisma.sql`AND "step" = ${options.step}`;
    const candidates = await tx.$queryRaw<SearchMatch[]>`
      SELECT "id", "step", "line" FROM "rollout_sample"
      WHERE "run_id"::text = ${options.runId} AND "search_terms" @> ${query.terms}::text[] ${inStep}
      LIMIT ${readable + 1}`;
    candidates.sort(byStepAndLine);
    const complete = candidates.length <= readable;
    // Of all candidates, the first `needed` end at the step where the first `needed` of this subset end, or before.
    const first = complete
      ? candidates.slice(0, needed)
      : await firstCandidates(
          tx,
          query,
          options.runId,
          { first: options.step, last: candidates[needed - 1]!.step },
          needed,
        );
    if (!phrased) return { matches: first, phraseBudgetSpent: false };
    const matches: SearchMatch[] = [];
    let checked = 0;
    while (checked < first.length && matches.length <= options.countCap) {
      const chunk = first.slice(checked, checked + PHRASE_CHUNK);
      checked += chunk.length;
      const found = new Set(
        (
          await tx.$queryRaw<{ id: string }[]>`
            SELECT "id" FROM "rollout_sample" s
            WHERE "id" = ANY(${chunk.map((candidate) => candidate.id)}::uuid[]) AND ${phraseCondition(query)}`
        ).map((row) => row.id),
      );
      matches.push(...chunk.filter((candidate) => found.has(candidate.id)));
    }
    return {
      matches: matches.slice(0, options.countCap + 1),
      phraseBudgetSpent: checked === needed && (!complete || candidates.length > needed),
    };
  });
}

/** The first `limit` samples with the words among the steps up to `last` (from `first`, if set), in order. */
async function firstCandidates(
  tx: Transaction,
  query: SearchQuery,
  runId: string,
  steps: { first: number | undefined; last: number },
  limit: number,
): Promise<SearchMatch[]> {
  const from = steps.first === undefined ? Prisma.empty : Prisma.sql`AND "step" >= ${steps.first}`;
  return tx.$queryRaw<SearchMatch[]>`
    SELECT "id", "step", "line" FROM "rollout_sample"
    WHERE "run_id" = ${runId}::uuid AND "step" <= ${steps.last} ${from}
      AND "search_terms" @> ${query.terms}::text[]
    ORDER BY "step", "line" LIMIT ${limit}`;
}

/** Every phrase verbatim, ignoring case, in the output or the input of sample `s`. */
function phraseCondition(query: SearchQuery): Prisma.Sql {
  return Prisma.join(
    query.phrases.map(
      (phrase) =>
        Prisma.sql`(strpos(lower(s."output"), ${phrase}) > 0 OR strpos(lower(s."input"), ${phrase}) > 0)`,
    ),
    ' AND ',
  );
}
