// Search against an earlier version, side by side on the same database at the same time: the baseline's
// `searchSamples` is read from git at --baseline (with the rest of packages/rollouts/src it imports), and the two
// are called in turn per repetition, so the machine's load (shared, and it drifts) weighs on both alike. A
// baseline with the query language (sample-query.ts, from 4d1e0de) gets each query as its own parser reads it;
// an older one the words and phrases of each query (what every version understood). Both get the options of
// every version. Needs the 100k-sample database that `bench/rollouts/run.ts` leaves behind
// (fusebox_bench_rollouts).
// Usage: node --conditions=@fusebox/source --import tsx bench/rollouts/search-ab.ts [--baseline <commit>]
//   [--out SEARCH-AB.md] (the query language was measured with --baseline 4d1e0de^ --out QUERY-AB.md, the phrase
//   check with --baseline 78671c6^ --out PHRASE-AB.md)
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openDatabase } from '@fusebox/db/database';
import type { PrismaClient } from '@fusebox/db/client';
import type { Prisma } from '@fusebox/db/prisma';
import {
  type SampleQuery,
  type SearchQuery,
  hasPhrase,
  parseSampleQuery,
  runFieldNames,
  sampleConditions,
  searchSamples,
  shownText,
} from '@fusebox/rollouts';
import { writeResults } from '../write-results';

const COMMAND = 'node --conditions=@fusebox/source --import tsx bench/rollouts/search-ab.ts';
const DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/fusebox_bench_rollouts';
const RUN_NAME = 'bench-rollouts';
/** Enough for a p95 that is not the slowest call (with 15 it was). */
const REPEATS = 40;
/** The router's settings (packages/api-router/src/routers/rollouts.ts), so each side does what the API asks. */
const COUNT_CAP = 1000;
const PHRASE_CANDIDATES = 2000;
const FILTER_CANDIDATES = 20_000;
const PREFIX_TERMS = 50;

/** Queries both versions answer (whole words), then what only the new one does: prefixes, filters. */
const SEARCHES: {
  q: string;
  filter?: { scoreMin?: number; scoreMax?: number; fields?: { name: string; equals: string }[] };
  label?: string;
}[] = [
  { q: 'zerodivisionerror' },
  { q: 'traceback' },
  { q: 'tickets marbles' },
  { q: 'kalo' },
  { q: '"print(total_3)"' },
  { q: 'the' },
  { q: '#### 4242' },
  { q: 'zerodiv' },
  { q: 'trace' },
  { q: 't' },
  { q: 'traceback', filter: { scoreMax: 0 }, label: 'score ≤ 0' },
  { q: 'traceback', filter: { scoreMin: 1 }, label: 'score ≥ 1' },
  { q: 'tick marb', filter: { fields: [{ name: 'acc', equals: 'true' }] }, label: 'acc = true' },
  { q: '"print(total_3)"', filter: { scoreMax: 0 }, label: 'score ≤ 0' },
  // Phrases the text does not hold verbatim in most candidates: a rare one among common words, which spends the
  // check budget, and one the text writes in other cases (`ZeroDivisionError: division`).
  { q: '"print(total_25)"' },
  { q: '"zerodivisionerror: division"' },
  // The query language (sample-query.ts): fields, NOT and OR in the query itself.
  { q: 'traceback score<=0' },
  { q: 'traceback NOT zerodivisionerror' },
  { q: 'zerodivisionerror OR nameerror' },
  { q: 'NOT traceback' },
  { q: 'score<=0 turns>=2' },
  { q: '(tickets OR marbles) acc:true' },
];

type BaselineSearch = (
  prisma: PrismaClient,
  query: SearchQuery | SampleQuery,
  options: {
    runId: string;
    countCap: number;
    phraseCandidates: number;
    checkBudget: number;
    prefixTerms: number;
    where?: Prisma.Sql;
  },
) => Promise<{ matches: unknown[] }>;

const { values: options } = parseArgs({
  options: {
    baseline: { type: 'string', default: '4bfe8a8^' },
    out: { type: 'string', default: 'SEARCH-AB.md' },
  },
});
const baselineCommit = execFileSync('git', ['rev-parse', options.baseline], { encoding: 'utf8' }).trim();

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function timed<T>(run: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const result = await run();
  return [result, performance.now() - start];
}

const count = (matches: unknown[]) => (matches.length > COUNT_CAP ? `${COUNT_CAP}+` : String(matches.length));

async function main() {
  // Beside this file, so its imports resolve from the bench package as the current version's do.
  const baselineDir = new URL(`./baseline-${process.pid}/`, import.meta.url);
  await mkdir(baselineDir);
  execFileSync('sh', [
    '-c',
    `git archive ${baselineCommit} packages/rollouts/src | tar -x --strip-components=3 -C "$0"`,
    fileURLToPath(baselineDir),
  ]);
  const database = await openDatabase({ url: DATABASE_URL });
  try {
    const baseline = (
      (await import(new URL('search-samples.ts', baselineDir).href)) as { searchSamples: BaselineSearch }
    ).searchSamples;
    const baselineParse = existsSync(new URL('sample-query.ts', baselineDir))
      ? (
          (await import(new URL('sample-query.ts', baselineDir).href)) as {
            parseSampleQuery: typeof parseSampleQuery;
          }
        ).parseSampleQuery
      : null;
    const run = await database.prisma.rolloutRun.findUnique({ where: { name: RUN_NAME } });
    if (!run) throw new Error(`no run ${RUN_NAME}: run bench/rollouts/run.ts first (it leaves the database)`);
    const knownFields = await runFieldNames(database.prisma, run.id);
    const loadBefore = loadavg()[0]!;
    const rows: string[] = [];
    for (const { q, filter, label } of SEARCHES) {
      const query = parseSampleQuery(q, { knownFields })!;
      const where = filter ? { where: sampleConditions({ fields: [], ...filter }) } : {};
      const current = () =>
        searchSamples(database.prisma, query, {
          runId: run.id,
          countCap: COUNT_CAP,
          checkBudget: hasPhrase(query) ? PHRASE_CANDIDATES : FILTER_CANDIDATES,
          prefixTerms: PREFIX_TERMS,
          ...where,
        });
      // A baseline before 4bfe8a8 ignores `where`: its answer to a filtered query is the unfiltered one.
      const baselineQuery = baselineParse ? baselineParse(q, { knownFields })! : shownText(query);
      const before = () =>
        baseline(database.prisma, baselineQuery, {
          runId: run.id,
          countCap: COUNT_CAP,
          phraseCandidates: PHRASE_CANDIDATES,
          checkBudget: hasPhrase(query) ? PHRASE_CANDIDATES : FILTER_CANDIDATES,
          prefixTerms: PREFIX_TERMS,
          ...where,
        });
      await current();
      await before();
      const ours: number[] = [];
      const theirs: number[] = [];
      let oursCount = '';
      let theirsCount = '';
      for (let index = 0; index < REPEATS; index++) {
        const [now, nowMs] = await timed(current);
        const [then, thenMs] = await timed(before);
        ours.push(nowMs);
        theirs.push(thenMs);
        oursCount = count(now.matches);
        theirsCount = count(then.matches);
      }
      const oursP95 = percentile(ours, 95);
      const theirsP95 = percentile(theirs, 95);
      rows.push(
        `| \`${q}\` | ${label ?? '–'} | ${oursCount} | ${theirsCount} | ${percentile(ours, 50).toFixed(0)} / ${oursP95.toFixed(0)} | ` +
          `${percentile(theirs, 50).toFixed(0)} / ${theirsP95.toFixed(0)} | ${(oursP95 / theirsP95).toFixed(2)}× |`,
      );
      console.log(rows.at(-1));
    }
    const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}`;
    await writeResults(
      new URL(options.out, import.meta.url),
      `# Search against the baseline\n\n` +
        `- Command: \`${COMMAND} --baseline ${options.baseline} --out ${options.out}\` (after \`node --import tsx bench/rollouts/run.ts\`, which leaves its database)\n` +
        `- Baseline: \`searchSamples\` at ${baselineCommit}\n` +
        `- Date: ${new Date().toISOString()}\n` +
        `- Machine: ${machine}; load average ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after (other work shares this machine)\n` +
        `- Data: the 100 steps × 1000 samples of \`bench/rollouts/run.ts\`\n\n` +
        `| query | filters | matches | baseline matches | ours p50 / p95 ms | baseline p50 / p95 ms | p95 ratio |\n| --- | --- | --- | --- | --- | --- | --- |\n${rows.join('\n')}\n\n` +
        `Times are \`searchSamples\` alone, in process (the index reads and the candidates' checks; the API adds the ` +
        `page's texts and snippets, the same for both), ${REPEATS} calls each after one warm-up, the two versions in turn. ` +
        `Where the baseline cannot do what a row asks (prefixes or filters before 4bfe8a8, fields, NOT and OR before ` +
        `4d1e0de), its count shows what it answered instead: the query's words and phrases alone.\n`,
    );
  } finally {
    await database.close();
    await rm(baselineDir, { recursive: true, force: true });
  }
}

await main();
