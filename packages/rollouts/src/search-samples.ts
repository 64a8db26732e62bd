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
  /**
   * A condition every match must also meet, on `rollout_sample` (the filter bar's score range and fields; see
   * `sampleConditions`). It may not name `step` or `line`, which the check's join makes ambiguous.
   */
  where?: Prisma.Sql;
  /**
   * Samples that have every word are checked for phrases and `where` a chunk at a time, in order: at most this
   * many, the first ones.
   */
  checkBudget: number;
  /** Index words a query word, read as a prefix, stands for at most: the first in byte order. */
  prefixTerms: number;
  /** Index rows read per query. Default ROWS_PER_READ. */
  rowsPerRead?: number;
}

export interface SearchResult {
  /** The first `countCap + 1` matches at most, in order. */
  matches: SearchMatch[];
  /** Whether samples with the words were left unchecked for phrases or `where`, the budget spent. */
  budgetSpent: boolean;
  /** Query words that begin more than `prefixTerms` index words: only the first of those were searched. */
  prefixesCut: string[];
}

/**
 * `rollout_term` rows read per query. A common word has a row in every step, so the first few hundred steps
 * are read before the first matches are known to suffice; the next steps only when they do not.
 */
const ROWS_PER_READ = 500;

/**
 * Candidates checked per query: a phrase reads each candidate's text, a filter only its row, so a filter alone
 * takes larger chunks. The check stops once the count cap is reached.
 */
const PHRASE_CHUNK = 250;
const WHERE_CHUNK = 2000;

interface Posting {
  term: string;
  step: number;
  lines: number[];
}

/**
 * Finds, in step and line order, the first `countCap + 1` samples that contain a word starting with each query
 * word (through the `rollout_term` index), every phrase (verbatim, ignoring case), and meet `where`.
 *
 * The index holds, per word and step, the lines that contain it, in order. A query word is first widened to the
 * index words it begins (`nameerr` → `nameerror`); per step, the lines of those are merged, and intersecting the
 * query words' lists gives that step's matches already ordered. Steps are read in order until there are
 * enough. Phrases and `where` are then checked on the candidates in order, a chunk at a time, until enough match
 * or the budget is spent.
 */
export async function searchSamples(
  prisma: PrismaClient,
  query: SearchQuery,
  options: SearchOptions,
): Promise<SearchResult> {
  const { wordsOf, prefixesCut } = await widenPrefixes(prisma, query.terms, options);
  const candidates = wordMatches(prisma, wordsOf, query.terms.length, options);
  const conditions = [
    ...(query.phrases.length > 0 ? [phraseCondition(query)] : []),
    ...(options.where ? [options.where] : []),
  ];
  if (conditions.length === 0) {
    const matches: SearchMatch[] = [];
    for await (const match of candidates) {
      matches.push(match);
      if (matches.length > options.countCap) break;
    }
    return { matches, budgetSpent: false, prefixesCut };
  }
  const chunkSize = query.phrases.length > 0 ? PHRASE_CHUNK : WHERE_CHUNK;
  const matches: SearchMatch[] = [];
  let checked = 0;
  let chunk: SearchMatch[] = [];
  const check = async () => {
    const found = new Set(
      (
        await prisma.$queryRaw<SearchMatch[]>`
          SELECT s."step", s."line" FROM "rollout_sample" s ${joinMatches(chunk)}
          WHERE s."run_id" = ${options.runId}::uuid AND ${Prisma.join(conditions, ' AND ')}`
      ).map(matchKey),
    );
    matches.push(...chunk.filter((candidate) => found.has(matchKey(candidate))));
    chunk = [];
  };
  let budgetSpent = false;
  for await (const candidate of candidates) {
    if (checked === options.checkBudget) {
      // One candidate beyond the budget: some were left unchecked.
      budgetSpent = true;
      break;
    }
    chunk.push(candidate);
    checked += 1;
    if (chunk.length === chunkSize) {
      await check();
      if (matches.length > options.countCap) break;
    }
  }
  if (chunk.length > 0 && matches.length <= options.countCap) await check();
  return { matches: matches.slice(0, options.countCap + 1), budgetSpent, prefixesCut };
}

/** A match as a string, to find the rows read for it: `step:line`. */
export const matchKey = (match: SearchMatch) => `${match.step}:${match.line}`;

/** Joins `rollout_sample s` (the caller filters its run) to the samples at these matches' steps and lines. */
export function joinMatches(matches: readonly SearchMatch[]): Prisma.Sql {
  return Prisma.sql`JOIN unnest(${matches.map((match) => match.step)}::int[], ${matches.map((match) => match.line)}::int[])
    AS m ("step", "line") ON s."step" = m."step" AND s."line" = m."line"`;
}

/**
 * The index words each query word begins, as: index word → the positions of the query words it stands for.
 * Each prefix is walked in the primary key's order one index probe per word (a loose index scan), so a prefix
 * that begins a word with rows in every step costs what one row does.
 */
async function widenPrefixes(
  prisma: PrismaClient,
  terms: readonly string[],
  options: SearchOptions,
): Promise<{ wordsOf: Map<string, number[]>; prefixesCut: string[] }> {
  const widened = await Promise.all(
    terms.map(
      (prefix) => prisma.$queryRaw<{ term: string }[]>`
        WITH RECURSIVE walk ("term") AS (
          (SELECT "term" FROM "rollout_term" WHERE "run_id" = ${options.runId}::uuid AND "term" >= ${prefix}
            ORDER BY "term" LIMIT 1)
          UNION ALL
          SELECT (SELECT t."term" FROM "rollout_term" t WHERE t."run_id" = ${options.runId}::uuid AND t."term" > walk."term"
            ORDER BY t."term" LIMIT 1)
          FROM walk WHERE starts_with(walk."term", ${prefix})
        )
        SELECT "term" FROM walk WHERE starts_with("term", ${prefix}) LIMIT ${options.prefixTerms + 1}`,
    ),
  );
  const wordsOf = new Map<string, number[]>();
  const prefixesCut: string[] = [];
  widened.forEach((rows, position) => {
    if (rows.length > options.prefixTerms) prefixesCut.push(terms[position]!);
    for (const { term } of rows.slice(0, options.prefixTerms)) {
      const positions = wordsOf.get(term) ?? [];
      positions.push(position);
      wordsOf.set(term, positions);
    }
  });
  return { wordsOf, prefixesCut };
}

/** The samples with a word beginning with every query word, in step and line order. */
async function* wordMatches(
  prisma: PrismaClient,
  wordsOf: ReadonlyMap<string, number[]>,
  queryWords: number,
  options: SearchOptions,
): AsyncGenerator<SearchMatch> {
  // A query word that begins no index word matches nothing: no index row need be read.
  if (new Set([...wordsOf.values()].flat()).size < queryWords) return;
  const rowsPerRead = options.rowsPerRead ?? ROWS_PER_READ;
  const read = (where: Prisma.Sql, rows: number | null) => prisma.$queryRaw<Posting[]>`
    SELECT "term", "step", "lines" FROM "rollout_term"
    WHERE "run_id" = ${options.runId}::uuid AND "term" = ANY(${[...wordsOf.keys()]}::text[]) AND ${where}
    ORDER BY "step", "first_line" ${rows === null ? Prisma.empty : Prisma.sql`LIMIT ${rows}`}`;
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
    for (const [step, lines] of linesByStep(rows, wordsOf, queryWords)) {
      for (const line of lines) yield { step, line };
    }
    if (!full) return;
  }
}

/** Per step, in order, the lines that hold a word beginning with every query word. */
function* linesByStep(
  rows: readonly Posting[],
  wordsOf: ReadonlyMap<string, number[]>,
  queryWords: number,
): Generator<[number, number[]]> {
  for (let start = 0; start < rows.length;) {
    const step = rows[start]!.step;
    const byWord = new Map<number, number[][]>();
    let end = start;
    for (; end < rows.length && rows[end]!.step === step; end++) {
      const row = rows[end]!;
      for (const position of wordsOf.get(row.term)!) {
        const lists = byWord.get(position) ?? [];
        lists.push(row.lines);
        byWord.set(position, lists);
      }
    }
    start = end;
    if (byWord.size === queryWords) yield [step, intersectSorted([...byWord.values()].map(unionSorted))];
  }
}

/** The numbers in any of the ascending lists, ascending, each once. */
function unionSorted(lists: number[][]): number[] {
  if (lists.length === 1) return lists[0]!;
  return [...new Set(lists.flat())].sort((a, b) => a - b);
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
