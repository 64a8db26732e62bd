import type { PrismaClient } from '@fusebox/db/client';
import { Prisma } from '@fusebox/db/prisma';
import type { SearchQuery } from './search-query';

/** A sample that matched, in the order results are listed: by step, then line. */
export interface SearchMatch {
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
  /** Index rows read per query. Default ROWS_PER_READ. */
  rowsPerRead?: number;
}

export interface SearchResult {
  /** The first `countCap + 1` matches at most, in order. */
  matches: SearchMatch[];
  /** Whether samples with the words were left unchecked for phrases, the budget spent. */
  phraseBudgetSpent: boolean;
}

/**
 * `rollout_term` rows read per query. A common word has a row in every step, so the first few hundred steps
 * are read before the first matches are known to suffice; the next steps only when they do not.
 */
const ROWS_PER_READ = 500;

/** Candidates whose text is checked for phrases per query: the check stops once the count cap is reached. */
const PHRASE_CHUNK = 250;

interface Posting {
  term: string;
  step: number;
  lines: number[];
}

/**
 * Finds, in step and line order, the first `countCap + 1` samples that contain every word (through the
 * `rollout_term` index) and every phrase (verbatim, ignoring case).
 *
 * The index holds, per word and step, the lines that contain it, in order: intersecting a step's lists for the
 * query's words gives that step's matches already ordered, and steps are read in order until there are enough.
 * Phrases are then checked in the candidates' text in order, a chunk at a time, until enough match or the budget
 * is spent.
 */
export async function searchSamples(
  prisma: PrismaClient,
  query: SearchQuery,
  options: SearchOptions,
): Promise<SearchResult> {
  if (query.phrases.length === 0) {
    return {
      matches: await wordMatches(prisma, query, options, options.countCap + 1),
      phraseBudgetSpent: false,
    };
  }
  // One candidate beyond the budget tells whether the budget left any unchecked.
  const candidates = await wordMatches(prisma, query, options, options.phraseCandidates + 1);
  const first = candidates.slice(0, options.phraseCandidates);
  const matches: SearchMatch[] = [];
  let checked = 0;
  while (checked < first.length && matches.length <= options.countCap) {
    const chunk = first.slice(checked, checked + PHRASE_CHUNK);
    checked += chunk.length;
    const found = new Set(
      (
        await prisma.$queryRaw<SearchMatch[]>`
          SELECT s."step", s."line" FROM "rollout_sample" s ${joinMatches(chunk)}
          WHERE s."run_id" = ${options.runId}::uuid AND ${phraseCondition(query)}`
      ).map(matchKey),
    );
    matches.push(...chunk.filter((candidate) => found.has(matchKey(candidate))));
  }
  return {
    matches: matches.slice(0, options.countCap + 1),
    phraseBudgetSpent: checked === first.length && candidates.length > first.length,
  };
}

/** A match as a string, to find the rows read for it: `step:line`. */
export const matchKey = (match: SearchMatch) => `${match.step}:${match.line}`;

/** Joins `rollout_sample s` (the caller filters its run) to the samples at these matches' steps and lines. */
export function joinMatches(matches: readonly SearchMatch[]): Prisma.Sql {
  return Prisma.sql`JOIN unnest(${matches.map((match) => match.step)}::int[], ${matches.map((match) => match.line)}::int[])
    AS m ("step", "line") ON s."step" = m."step" AND s."line" = m."line"`;
}

/** The first `limit` samples with every word of the query, in step and line order. */
async function wordMatches(
  prisma: PrismaClient,
  query: SearchQuery,
  options: SearchOptions,
  limit: number,
): Promise<SearchMatch[]> {
  const rowsPerRead = options.rowsPerRead ?? ROWS_PER_READ;
  const read = (where: Prisma.Sql, rows: number | null) => prisma.$queryRaw<Posting[]>`
    SELECT "term", "step", "lines" FROM "rollout_term"
    WHERE "run_id" = ${options.runId}::uuid AND "term" = ANY(${query.terms}::text[]) AND ${where}
    ORDER BY "step", "first_line" ${rows === null ? Prisma.empty : Prisma.sql`LIMIT ${rows}`}`;
  const matches: SearchMatch[] = [];
  const inStep = options.step === undefined ? Prisma.empty : Prisma.sql`AND "step" = ${options.step}`;
  let from = options.step ?? -2147483648;
  for (;;) {
    let rows = await read(Prisma.sql`"step" >= ${from} ${inStep}`, rowsPerRead);
    const full = rows.length === rowsPerRead;
    if (full) {
      // The read may have cut its last step short: that step is read again, whole, with the next ones.
      const cut = rows.at(-1)!.step;
      rows =
        rows[0]!.step === cut
          ? await read(Prisma.sql`"step" = ${cut}`, null)
          : rows.filter((row) => row.step !== cut);
      from = rows.at(-1)!.step + 1;
    }
    for (const [step, lines] of linesByStep(rows, query.terms)) {
      for (const line of lines) {
        matches.push({ step, line });
        if (matches.length === limit) return matches;
      }
    }
    if (!full) return matches;
  }
}

/** Per step, in order, the lines that hold every one of `terms`. */
function* linesByStep(rows: readonly Posting[], terms: readonly string[]): Generator<[number, number[]]> {
  for (let start = 0; start < rows.length;) {
    const step = rows[start]!.step;
    const byTerm = new Map<string, number[]>();
    let end = start;
    for (; end < rows.length && rows[end]!.step === step; end++) {
      const row = rows[end]!;
      // Rows of a word within a step come by first line, so appending keeps its lines in order.
      const lines = byTerm.get(row.term);
      if (lines) for (const line of row.lines) lines.push(line);
      else byTerm.set(row.term, row.lines);
    }
    start = end;
    if (byTerm.size === terms.length) yield [step, intersectSorted([...byTerm.values()])];
  }
}

/** The numbers in every one of the ascending lists, ascending. */
function intersectSorted(lists: number[][]): number[] {
  const [shortest, ...others] = [...lists].sort((a, b) => a.length - b.length);
  const positions = others.map(() => 0);
  return shortest!.filter((value) =>
    others.every((list, index) => {
      let position = positions[index]!;
      while (position < list.length && list[position]! < value) position += 1;
      positions[index] = position;
      return list[position] === value;
    }),
  );
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
