import type { PrismaClient } from '@fusebox/db/client';
import { Prisma } from '@fusebox/db/prisma';
import { extraTextMatches } from './extra-text-match';
import { numericField } from './sample-filter';
import {
  type BuiltinField,
  type SampleQuery,
  hasPhrase,
  hasText,
  requiredWords,
  wordAtoms,
} from './sample-query';

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
  /** Index rows one read takes at most. Default ROWS_PER_READ. */
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
 * `rollout_term` rows one read takes at most. The first read takes a FIRST_READ_SHARE of them and each next one
 * twice the last: a query word has a row in every step it appears in, and a prefix one per index word it stands
 * for, so the first steps may already hold all the candidates a query needs. `"print(total_3)"` stands for 52
 * index words, whose first 500 rows spanned 43 steps and 144k lines (100 ms to read and parse, on 100k samples)
 * when its first 2,000 candidates are in its first 3 steps. Doubling reads at most twice the rows needed, in a
 * handful of reads for a rare word.
 */
const ROWS_PER_READ = 500;
const FIRST_READ_SHARE = 1 / 16;

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
 * Finds, in step and line order, the first `countCap + 1` samples that match a query of the query box
 * (sample-query.ts) and meet `where`.
 *
 * The word index holds, per word and step, the lines that contain it, in order. A query word is first widened to
 * the index words it begins (`nameerr` → `nameerror`). The words every match needs give the candidates: per step,
 * the lines of the index words a query word stands for are merged, and intersecting the query words' lists gives
 * that step's candidates already ordered. A query that needs no word (`NOT traceback`, `a OR "b c"` without a
 * shared word) reads every sample instead. Candidates are then checked a chunk at a time, in order, until enough
 * match or the budget is spent: the query's other words from the index, its phrases and fields in SQL. A query of
 * fields alone is one SQL query.
 */
export async function searchSamples(
  prisma: PrismaClient,
  query: SampleQuery,
  options: SearchOptions,
): Promise<SearchResult> {
  if (!hasText(query)) return fieldMatches(prisma, query, options);
  const atoms = wordAtoms(query);
  const { wordsOf, prefixesCut } = await widenPrefixes(prisma, atoms, options);
  const required = requiredWords(query);
  const candidates =
    required.length > 0
      ? wordMatches(prisma, wordsOfRequired(wordsOf, atoms, required), required.length, options)
      : everySample(prisma, options);
  if (required.length === atoms.length && onlyWords(query) && options.where === undefined) {
    // Every candidate has every word, and that is all the query asks.
    const matches: SearchMatch[] = [];
    for await (const match of candidates) {
      matches.push(match);
      if (matches.length > options.countCap) break;
    }
    return { matches, budgetSpent: false, prefixesCut };
  }
  const decidedByWords = onlyWords(query) && options.where === undefined;
  const chunkSize = hasPhrase(query) ? PHRASE_CHUNK : WHERE_CHUNK;
  const matches: SearchMatch[] = [];
  let checked = 0;
  let chunk: SearchMatch[] = [];
  const check = async () => {
    const masks = await wordMasks(prisma, wordsOf, atoms, required, chunk, options.runId);
    const holding = (match: SearchMatch) => decide(query, atoms, masks.get(matchKey(match))!) !== false;
    const possible = chunk.filter(holding);
    chunk = [];
    if (decidedByWords || possible.length === 0) {
      matches.push(...possible);
      return;
    }
    const found = new Set(
      // One index probe per candidate (LATERAL … LIMIT 1): as a join, the planner hashed the whole run's
      // samples instead, reading every one (and every text, with a phrase) to check 2,000 (560 ms against 21 ms
      // for a filter on 100k samples).
      (
        await prisma.$queryRaw<SearchMatch[]>`
          SELECT m."step", m."line"
          FROM unnest(${possible.map((match) => match.step)}::int[], ${possible.map((match) => match.line)}::int[],
            ${possible.map((match) => masks.get(matchKey(match))!)}::int[]) AS m ("step", "line", "mask")
          CROSS JOIN LATERAL (
            SELECT 1 FROM "rollout_sample" s
            WHERE s."run_id" = ${options.runId}::uuid AND s."step" = m."step" AND s."line" = m."line"
              AND ${querySql(query, atoms, required)} ${options.where ? Prisma.sql`AND ${options.where}` : Prisma.empty}
            LIMIT 1) hit`
      ).map(matchKey),
    );
    matches.push(...possible.filter((candidate) => found.has(matchKey(candidate))));
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
  const maxRowsPerRead = options.rowsPerRead ?? ROWS_PER_READ;
  let rowsPerRead = Math.ceil(maxRowsPerRead * FIRST_READ_SHARE);
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
    rowsPerRead = Math.min(rowsPerRead * 2, maxRowsPerRead);
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

/** A query of fields alone, in SQL: the samples of the run (or step) in order, as many as the cap asks. */
async function fieldMatches(
  prisma: PrismaClient,
  query: SampleQuery,
  options: SearchOptions,
): Promise<SearchResult> {
  const matches = await prisma.$queryRaw<SearchMatch[]>`
    SELECT s."step", s."line" FROM "rollout_sample" s
    WHERE s."run_id" = ${options.runId}::uuid
      ${options.step === undefined ? Prisma.empty : Prisma.sql`AND s."step" = ${options.step}`}
      AND ${querySql(query, [], [])} ${options.where ? Prisma.sql`AND ${options.where}` : Prisma.empty}
    ORDER BY s."step", s."line" LIMIT ${options.countCap + 1}`;
  return { matches, budgetSpent: false, prefixesCut: [] };
}

/** Every sample of the run (or of the step), in order, a page at a time: candidates when no word is needed. */
async function* everySample(prisma: PrismaClient, options: SearchOptions): AsyncGenerator<SearchMatch> {
  let after = { step: options.step ?? -2147483648, line: -1 };
  for (;;) {
    const page = await prisma.$queryRaw<SearchMatch[]>`
      SELECT "step", "line" FROM "rollout_sample"
      WHERE "run_id" = ${options.runId}::uuid AND ("step", "line") > (${after.step}, ${after.line})
        ${options.step === undefined ? Prisma.empty : Prisma.sql`AND "step" = ${options.step}`}
      ORDER BY "step", "line" LIMIT ${WHERE_CHUNK}`;
    yield* page;
    if (page.length < WHERE_CHUNK) return;
    after = page.at(-1)!;
  }
}

/** The widened index words of the required query words, with positions among the required words. */
function wordsOfRequired(
  wordsOf: ReadonlyMap<string, number[]>,
  atoms: readonly string[],
  required: readonly string[],
): Map<string, number[]> {
  const narrowed = new Map<string, number[]>();
  for (const [term, positions] of wordsOf) {
    const kept = positions
      .map((position) => required.indexOf(atoms[position]!))
      .filter((index) => index >= 0);
    if (kept.length > 0) narrowed.set(term, kept);
  }
  return narrowed;
}

/**
 * Per candidate (by matchKey), a bit per query word (its position in `atoms`) set when the sample holds a word
 * it begins: required words are held by every candidate, the others are read from the index for the chunk's
 * steps.
 */
async function wordMasks(
  prisma: PrismaClient,
  wordsOf: ReadonlyMap<string, number[]>,
  atoms: readonly string[],
  required: readonly string[],
  chunk: readonly SearchMatch[],
  runId: string,
): Promise<Map<string, number>> {
  const base = required.reduce((mask, word) => mask | (1 << atoms.indexOf(word)), 0);
  const masks = new Map(chunk.map((match) => [matchKey(match), base]));
  const optional = [...wordsOf].filter(([, positions]) =>
    positions.some((position) => !required.includes(atoms[position]!)),
  );
  if (optional.length === 0) return masks;
  const rows = await prisma.$queryRaw<Posting[]>`
    SELECT "term", "step", "lines" FROM "rollout_term"
    WHERE "run_id" = ${runId}::uuid AND "term" = ANY(${optional.map(([term]) => term)}::text[])
      AND "step" = ANY(${[...new Set(chunk.map((match) => match.step))]}::int[])`;
  for (const row of rows) {
    const bits = wordsOf.get(row.term)!.reduce((mask, position) => mask | (1 << position), 0);
    for (const line of row.lines) {
      const key = matchKey({ step: row.step, line });
      const mask = masks.get(key);
      if (mask !== undefined) masks.set(key, mask | bits);
    }
  }
  return masks;
}

/** Whether a query holds for a sample whose words are `mask`: true, false, or undefined when phrases or fields decide. */
function decide(query: SampleQuery, atoms: readonly string[], mask: number): boolean | undefined {
  switch (query.kind) {
    case 'word':
      return (mask & (1 << atoms.indexOf(query.word))) !== 0;
    case 'not': {
      const inner = decide(query.node, atoms, mask);
      return inner === undefined ? undefined : !inner;
    }
    case 'and':
    case 'or': {
      const stop = query.kind === 'or';
      let result: boolean | undefined = !stop;
      for (const node of query.nodes) {
        const value = decide(node, atoms, mask);
        if (value === stop) return stop;
        if (value === undefined) result = undefined;
      }
      return result;
    }
    default:
      return undefined;
  }
}

const onlyWords = (query: SampleQuery): boolean =>
  query.kind === 'word' ||
  (query.kind === 'not' && onlyWords(query.node)) ||
  ((query.kind === 'and' || query.kind === 'or') && query.nodes.every(onlyWords));

const BUILTIN_COLUMNS: Record<BuiltinField, Prisma.Sql> = {
  score: Prisma.sql`s."score"`,
  chars: Prisma.sql`s."response_chars"`,
  tool_calls: Prisma.sql`s."tool_calls"`,
  tool_errors: Prisma.sql`s."tool_errors"`,
  turns: Prisma.sql`s."turns"`,
  step: Prisma.sql`s."step"`,
};

/**
 * A query as a condition on sample `s`, word atoms read from the candidate's mask `m."mask"`, or TRUE for the
 * words every candidate has. Every atom is false rather than NULL when its field is missing, so `NOT acc:true`
 * holds for a sample without `acc`.
 */
function querySql(query: SampleQuery, atoms: readonly string[], required: readonly string[]): Prisma.Sql {
  const inner = (node: SampleQuery) => querySql(node, atoms, required);
  switch (query.kind) {
    case 'word':
      return required.includes(query.word)
        ? Prisma.sql`TRUE`
        : Prisma.sql`(m."mask" & ${1 << atoms.indexOf(query.word)}) <> 0`;
    case 'phrase':
      return phraseSql(query.text);
    case 'field':
      return Prisma.sql`COALESCE(${fieldSql(query)}, FALSE)`;
    case 'not':
      return Prisma.sql`NOT (${inner(query.node)})`;
    default:
      return Prisma.sql`(${Prisma.join(query.nodes.map(inner), query.kind === 'and' ? ' AND ' : ' OR ')})`;
  }
}

/**
 * Whether sample `s` holds `phrase` (lowercase) in its lowercased output or input. Lowercasing a whole text
 * costs three times what reading it does under the database's locale (C.UTF-8: each character goes through a
 * wide character), so it is avoided where the answer is known without it. `lower()` maps each character on
 * its own:
 *
 * - a text that holds verbatim a phrase `lower()` leaves as it is holds it lowercased too;
 * - no character lowercases to an ASCII digit, space or punctuation but itself (case maps letters to letters;
 *   of all code points, only `İ` and the Kelvin sign lowercase into ASCII at all, to `i` and `k`, in the bench's
 *   C.UTF-8 database), so a text whose lowercase holds the phrase holds verbatim the phrase's longest run of
 *   those: a text without it is not lowercased.
 *
 * An ASCII phrase is matched against the text with only its ASCII letters lowercased (`lower()` under the `C`
 * collation: a copy, at about the cost of reading the text; on 2,000 texts of the bench 45 ms against 131 ms).
 * Its letters then match ASCII letters alone, so `İ` and the Kelvin sign no longer count as `i` and `k` in it.
 */
function phraseSql(phrase: string): Prisma.Sql {
  const anchor = longestCaselessRun(phrase);
  const lowered = (text: Prisma.Sql) =>
    NOT_ASCII.test(phrase) ? Prisma.sql`lower(${text})` : Prisma.sql`lower(${text} COLLATE "C")`;
  const holds = (text: Prisma.Sql) =>
    Prisma.sql`(${anchor ? Prisma.sql`strpos(${text}, ${anchor}) > 0 AND` : Prisma.empty} strpos(${lowered(text)}, ${phrase}) > 0)`;
  return Prisma.sql`((lower(${phrase}) = ${phrase} AND (strpos(s."output", ${phrase}) > 0 OR strpos(s."input", ${phrase}) > 0))
    OR ${holds(Prisma.sql`s."output"`)} OR ${holds(Prisma.sql`s."input"`)})`;
}

const NOT_ASCII = /[^\p{ASCII}]/u;

/** The longest run of ASCII characters that are not letters in `text` (`_25)` in `print(total_25)`), or ''. */
function longestCaselessRun(text: string): string {
  return (text.match(/[^\x41-\x5a\x61-\x7a\x80-\uffff]+/g) ?? []).reduce(
    (longest, run) => (run.length > longest.length ? run : longest),
    '',
  );
}

function fieldSql({ field, op, value, pattern }: Extract<SampleQuery, { kind: 'field' }>): Prisma.Sql {
  const operator = Prisma.raw(op === '!=' ? 'IS DISTINCT FROM' : op);
  if ('builtin' in field) return Prisma.sql`${BUILTIN_COLUMNS[field.builtin]} ${operator} ${Number(value)}`;
  if (op === '=' || op === '!=') {
    const matches = extraTextMatches(Prisma.sql`s."extras"`, field.extra, value, { pattern });
    return op === '=' ? matches : Prisma.sql`(${matches}) IS NOT TRUE`;
  }
  return Prisma.sql`${numericField(field.extra)} ${operator} ${Number(value)}`;
}
