// BM25 ranking on 1M passages (#21), this checkout's against a previous commit's, side by side in one run: the
// index alone in this process (both indexes built from the same synthetic corpus, each answering the same single
// queries, top 3, in rounds that alternate between them; every answer compared), then over loopback HTTP as
// verl's SearchTool calls /retrieve, one `fusebox serve` of each checkout on one Postgres database, both with the
// in-process permit (FUSEBOX_RETRIEVE_LIMITER=process) so that the ranking is all that differs, at concurrency
// 1, again in alternating rounds.
// Usage: node --conditions=@fusebox/source --import tsx bench/retrieval/ranking.ts --before DIR
//          [--before-commit SHA] [--after DIR] [--documents 1000000] [--skip-http]
// DIR: a checkout (e.g. `git archive` of the commit, with node_modules and the generated Prisma client) whose
// packages/retrieval and fusebox CLI are the baseline; --after (default: this checkout) serves the new ranking
// over HTTP, so a copy of the change can leave out other engineers' unfinished edits.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import * as current from '@fusebox/retrieval';
import { readLines } from '@fusebox/rollouts';
import { corpusDatabase, firstSearch, startServer, stopServers } from './fusebox-server';
import { percentile, retrieve } from './retrieve-client';
import { SyntheticCorpus, writeSyntheticCorpus } from './synthetic-corpus';
import { FUSEBOX } from '../run-fusebox';
import { writeResults } from '../write-results';

const COMMAND = 'node --conditions=@fusebox/source --import tsx bench/retrieval/ranking.ts';
const DATABASE = 'fusebox_bench_retrieval_ranking';
const DATABASE_URL = `postgresql://postgres@127.0.0.1:5432/${DATABASE}`;
const CORPUS = 'bench';
const TOPK = 3;
const QUERIES = 600;
const ROUNDS = 4;
const WARM_UP = 50;

const { values: options } = parseArgs({
  options: {
    documents: { type: 'string', default: '1000000' },
    before: { type: 'string' },
    'before-commit': { type: 'string', default: '' },
    after: { type: 'string' },
    'skip-http': { type: 'boolean', default: false },
  },
});
if (!options.before) throw new Error('--before DIR: a checkout of the baseline commit, with node_modules');
const documents = Number(options.documents);
const beforeName = `previous (${options['before-commit'] || 'baseline'})`;
const afterName = 'new (this checkout)';

type Retrieval = typeof current;
const previous = (await import(
  pathToFileURL(join(options.before, 'packages/retrieval/src/index.ts')).href
)) as Retrieval;

const loads: string[] = [`${loadavg()[0]!.toFixed(1)} at the start`];
const dir = await mkdtemp(join(tmpdir(), 'fusebox-bench-ranking-'));
const path = join(dir, 'corpus.jsonl');
const corpus = new SyntheticCorpus();
const samples = await writeSyntheticCorpus(path, documents, corpus);
const queries = Array.from({ length: QUERIES }, (_, i) => corpus.queryFrom(samples[i % samples.length]!));

/** Each query's time per side, measured in rounds that alternate which side goes first. */
async function alternate(sides: { name: string; run: (query: string) => Promise<unknown> }[]) {
  const times = new Map(sides.map((side) => [side.name, [] as number[]]));
  for (const side of sides) for (const query of queries.slice(0, WARM_UP)) await side.run(query);
  const perRound = QUERIES / ROUNDS;
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < sides.length; k++) {
      const side = sides[(round + k) % sides.length]!;
      for (const query of queries.slice(round * perRound, (round + 1) * perRound)) {
        const started = performance.now();
        await side.run(query);
        times.get(side.name)!.push(performance.now() - started);
      }
    }
  }
  return times;
}

// In process: both indexes from one reading of the corpus, stemmed as new corpora are.
const builders = [
  new previous.Bm25IndexBuilder({ stemmer: 'porter' }),
  new current.Bm25IndexBuilder({ stemmer: 'porter' }),
];
for await (const line of readLines(path, 0)) {
  const { contents } = JSON.parse(line.text) as { contents: string };
  for (const builder of builders) builder.add(contents);
}
const [beforeIndex, afterIndex] = builders.map((builder) => builder.build()) as [
  current.Bm25Index,
  current.Bm25Index,
];
loads.push(`${loadavg()[0]!.toFixed(1)} after building the indexes`);
// The same answers, to the bit, at this bench's topk and at a deeper one.
let identical = 0;
for (const query of queries) {
  const same = [TOPK, 100].every(
    (topk) =>
      JSON.stringify(beforeIndex.search(query, topk)) === JSON.stringify(afterIndex.search(query, topk)),
  );
  if (same) identical += 1;
}
const inProcess = await alternate([
  { name: beforeName, run: (query) => Promise.resolve(beforeIndex.search(query, TOPK)) },
  { name: afterName, run: (query) => Promise.resolve(afterIndex.search(query, TOPK)) },
]);
loads.push(`${loadavg()[0]!.toFixed(1)} after the in-process runs`);

let http: Map<string, number[]> | undefined;
let firstSearchS = '';
if (!options['skip-http']) {
  const database = await corpusDatabase(DATABASE_URL, path, CORPUS);
  const servers: ChildProcess[] = [];
  try {
    const sides = [
      { name: beforeName, bin: join(options.before, 'apps/api/bin/fusebox.js'), port: 18400 },
      {
        name: afterName,
        bin: options.after ? join(options.after, 'apps/api/bin/fusebox.js') : FUSEBOX,
        port: 18401,
      },
    ];
    for (const [i, side] of sides.entries()) {
      servers.push(
        await startServer(side.bin, side.port, {
          DATABASE_URL,
          FUSEBOX_RETRIEVE_LIMITER: 'process',
          FUSEBOX_LIMITER_KEY: `run_code_${i}`,
        }),
      );
    }
    const firsts = await Promise.all(sides.map((side) => firstSearch(side.port, queries[0]!, TOPK)));
    firstSearchS = sides.map((side, i) => `${side.name} ${(firsts[i]! / 1000).toFixed(1)} s`).join('; ');
    loads.push(`${loadavg()[0]!.toFixed(1)} once both servers had built their index`);
    http = await alternate(
      sides.map((side) => ({ name: side.name, run: (query) => retrieve(side.port, [query], TOPK) })),
    );
    loads.push(`${loadavg()[0]!.toFixed(1)} at the end`);
  } finally {
    await stopServers(servers);
    await database.drop();
  }
}
await rm(dir, { recursive: true, force: true });

const ms = (value: number) => `${value.toFixed(2)} ms`;
const cells = (times: Map<string, number[]> | undefined, name: string) =>
  times ? [ms(percentile(times.get(name)!, 50)), ms(percentile(times.get(name)!, 99))] : ['–', '–'];
const ratios = (times: Map<string, number[]> | undefined) =>
  times
    ? [50, 99].map(
        (p) =>
          `${(percentile(times.get(afterName)!, p) / percentile(times.get(beforeName)!, p)).toFixed(2)}×`,
      )
    : ['–', '–'];
const markdown = [
  `# BM25 ranking on ${documents.toLocaleString('en-US')} passages: new against previous, side by side`,
  '',
  `- Command: \`${COMMAND} --before DIR${options['before-commit'] ? ` --before-commit ${options['before-commit']}` : ''}${options.after ? ' --after DIR2' : ''} --documents ${documents}${options['skip-http'] ? ' --skip-http' : ''}\`, DIR a checkout of the previous commit${options.after ? ', DIR2 one of the change' : ''}`,
  `- Date: ${new Date().toISOString()}`,
  `- Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}; load average ${loads.join(', ')} (other work shares this machine)`,
  `- Data: ${documents.toLocaleString('en-US')} synthetic passages (\`synthetic-corpus.ts\`, porter stemming); ${QUERIES} single queries of 5–10 words, top ${TOPK}, per side and setting, in ${ROUNDS} rounds alternating between the sides after ${WARM_UP} warm-up queries; over HTTP one \`fusebox serve\` per side on one Postgres, \`FUSEBOX_RETRIEVE_LIMITER=process\`, \`return_scores\` true, concurrency 1`,
  `- Same answers: ${identical} of ${QUERIES} queries ranked identically by both indexes (documents, order and scores to the bit, at top ${TOPK} and top 100)`,
  '',
  '| ranking | in process p50 | in process p99 | over HTTP p50 | over HTTP p99 |',
  '| --- | --- | --- | --- | --- |',
  `| ${beforeName} | ${[...cells(inProcess, beforeName), ...cells(http, beforeName)].join(' | ')} |`,
  `| ${afterName} | ${[...cells(inProcess, afterName), ...cells(http, afterName)].join(' | ')} |`,
  `| new / previous | ${[...ratios(inProcess), ...ratios(http)].join(' | ')} |`,
  '',
  'In process is `Bm25Index.search` alone; over HTTP is wall-clock at the client over loopback, the whole',
  "/retrieve path (JSON both ways, the permit, the passages from memory; the call's record is written after the",
  `answer). ${firstSearchS ? `First search (the server builds its index): ${firstSearchS}.` : ''}`,
].join('\n');
await writeResults(new URL('./RANKING.md', import.meta.url), markdown);
console.log(markdown);
