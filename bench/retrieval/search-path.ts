// Where a /retrieve search spends its time, stage by stage, in one process against one Postgres: the BM25 index
// alone; the index plus reading the hits' passages (CorpusSearcher.search; raw SQL instead of Prisma measured
// beside it); that under a Postgres limiter permit, as the route takes one; and that plus recording the call,
// as the route did before answering (it now records after: SEARCH-PATH.md, "After"). Each stage answers the
// same single queries, top 3, in rounds that alternate between stages, so the machine's load falls on all of
// them alike.
// Usage: node --conditions=@fusebox/source --import tsx bench/retrieval/search-path.ts [--documents 100000]
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createPostgresTestDatabase } from '@fusebox/db/testing';
import { createPgLimiter } from '@fusebox/rate-limiter/pg';
import { Bm25IndexBuilder, CorpusSearcher, importCorpus } from '@fusebox/retrieval';
import { readLines } from '@fusebox/rollouts';
import { SyntheticCorpus, writeSyntheticCorpus } from './synthetic-corpus';
import { writeResults } from '../write-results';

const COMMAND = 'node --conditions=@fusebox/source --import tsx bench/retrieval/search-path.ts';
const QUERIES = 200;
const ROUNDS = 3;
const TOPK = 3;

const { values: options } = parseArgs({ options: { documents: { type: 'string', default: '100000' } } });
const documents = Number(options.documents);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const loadBefore = loadavg()[0]!.toFixed(1);
const dir = await mkdtemp(join(tmpdir(), 'fusebox-bench-search-path-'));
const path = join(dir, 'corpus.jsonl');
const corpus = new SyntheticCorpus();
const samples = await writeSyntheticCorpus(path, documents, corpus);
const queries = Array.from({ length: QUERIES }, (_, i) => corpus.queryFrom(samples[i % samples.length]!));

const database = await createPostgresTestDatabase();
const opened = await database.open();
await importCorpus(opened.sql, { path, name: 'bench' });
const builder = new Bm25IndexBuilder({ stemmer: 'porter' });
for await (const line of readLines(path, 0))
  builder.add((JSON.parse(line.text) as { contents: string }).contents);
const index = builder.build();
const searcher = new CorpusSearcher(opened.prisma);
await searcher.warm();
const ref = await searcher.resolveCorpus('bench');
const limiter = await createPgLimiter({ connectionString: database.url, key: 'bench.retrieve', limit: 4 });
const search = (query: string) => searcher.search({ corpus: ref, queries: [query], topk: TOPK });

const stages: { name: string; run: (query: string) => Promise<unknown> }[] = [
  { name: 'BM25 index alone', run: (query) => Promise.resolve(index.search(query, TOPK)) },
  { name: "+ the hits' passages read (CorpusSearcher.search, Prisma's findMany)", run: search },
  {
    name: '(alternative: the passages read with raw SQL instead)',
    run: async (query) => {
      // Lines are 1-based positions in the file, and the bench's index holds every line in order.
      const lines = index.search(query, TOPK).map((hit) => hit.doc + 1);
      return opened.prisma.$queryRaw`
        SELECT "line", "doc_id", "contents" FROM "retrieval_document"
        WHERE "corpus_id" = ${ref.id}::uuid AND "line" = ANY(${lines}::int[])`;
    },
  },
  { name: '+ under a Postgres limiter permit', run: (query) => limiter.withPermit(() => search(query)) },
  {
    name: '+ the call recorded in retrieval_call',
    run: async (query) => {
      const found = await limiter.withPermit(() => search(query));
      await opened.prisma.retrievalCall.create({
        data: {
          corpusName: 'bench',
          corpusId: ref.id,
          queries: [query],
          topk: TOPK,
          status: 200,
          results: found.results.map((list) => list.map(({ id, score }) => ({ id, score }))),
          durationMs: 1,
        },
      });
    },
  },
];

const times = new Map(stages.map((stage) => [stage.name, [] as number[]]));
for (const stage of stages) for (const query of queries.slice(0, 20)) await stage.run(query); // warm-up
for (let round = 0; round < ROUNDS; round++) {
  for (const stage of stages) {
    for (const query of queries) {
      const started = performance.now();
      await stage.run(query);
      times.get(stage.name)!.push(performance.now() - started);
    }
  }
}
await limiter.close();
await opened.close();
await database.drop();
await rm(dir, { recursive: true, force: true });

const base = percentile(times.get(stages[0]!.name)!, 50);
const markdown = [
  '# Where a /retrieve search spends its time',
  '',
  `- Command: \`${COMMAND} --documents ${documents}\``,
  `- Date: ${new Date().toISOString()}`,
  `- Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}; load average ${loadBefore} before, ${loadavg()[0]!.toFixed(1)} after (other work shares this machine)`,
  `- Data: ${documents.toLocaleString('en-US')} synthetic passages imported into Postgres (porter stemming); ${QUERIES} single queries, top ${TOPK}, ${ROUNDS} rounds alternating between the stages after 20 warm-up queries each; in one process, no HTTP`,
  '',
  '| stage (cumulative but the alternative) | p50 | p99 | p50 vs index alone |',
  '| ------------------ | --- | --- | ------------------ |',
  ...stages.map(({ name }) => {
    const ms = times.get(name)!;
    const p50 = percentile(ms, 50);
    return `| ${name} | ${p50.toFixed(2)} ms | ${percentile(ms, 99).toFixed(2)} ms | ${(p50 / base).toFixed(1)}× |`;
  }),
  '',
  "The index is a small part of a search: each Postgres round trip (reading the hits' passages, taking and",
  'giving back the permit, committing the call) costs more than ranking, and more still when the machine is',
  'loaded. `bench/retrieval/run.ts --documents 1000` (a corpus whose index costs nothing) answered its single',
  'queries over HTTP at a p50 of 39 ms at load 23, above the 26 ms RESULTS.md measured for 1M passages: the',
  '1M p50 is set by these round trips and the load, not by the index.',
  '',
];
await writeResults(new URL('./SEARCH-PATH.md', import.meta.url), markdown.join('\n'));
console.log(markdown.join('\n'));
