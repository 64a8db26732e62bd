// What Porter stemming costs the in-process BM25 index: the same synthetic corpus is indexed without a stemmer
// (as corpora imported before stemming are) and with Porter's (the default of new imports), side by side in one
// run, each answering the same single queries for the top 3. Build time includes reading the JSONL file.
// Usage: node --conditions=@fusebox/source --import tsx bench/retrieval/stemming.ts [--documents 100000]
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { readLines } from '@fusebox/rollouts';
import { Bm25IndexBuilder, type Stemmer } from '@fusebox/retrieval';
import { SyntheticCorpus, writeSyntheticCorpus } from './synthetic-corpus';
import { writeResults } from '../write-results';

const COMMAND = 'node --conditions=@fusebox/source --import tsx bench/retrieval/stemming.ts';
const QUERIES = 300;
const TOPK = 3;
/** Each stemmer is built and queried this many times, alternating, and its median kept: the machine is shared. */
const ROUNDS = 5;

const { values: options } = parseArgs({ options: { documents: { type: 'string', default: '100000' } } });
const documents = Number(options.documents);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function measure(path: string, queries: string[], stemmer: Stemmer) {
  const started = performance.now();
  const builder = new Bm25IndexBuilder({ stemmer });
  for await (const line of readLines(path, 0))
    builder.add((JSON.parse(line.text) as { contents: string }).contents);
  const index = builder.build();
  const buildMs = performance.now() - started;
  for (const query of queries.slice(0, 20)) index.search(query, TOPK); // warm-up
  const ms: number[] = [];
  for (const query of queries) {
    const at = performance.now();
    index.search(query, TOPK);
    ms.push(performance.now() - at);
  }
  return { buildMs, terms: index.terms, p50: percentile(ms, 50), p99: percentile(ms, 99) };
}

const dir = await mkdtemp(join(tmpdir(), 'fusebox-bench-stemming-'));
const path = join(dir, 'corpus.jsonl');
const corpus = new SyntheticCorpus();
const loadBefore = loadavg()[0]!.toFixed(1);
const samples = await writeSyntheticCorpus(path, documents, corpus);
const queries = Array.from({ length: QUERIES }, (_, i) => corpus.queryFrom(samples[i % samples.length]!));
const runs: Record<Stemmer, Awaited<ReturnType<typeof measure>>[]> = { none: [], porter: [] };
for (let round = 0; round < ROUNDS; round++) {
  for (const stemmer of ['none', 'porter'] as const)
    runs[stemmer].push(await measure(path, queries, stemmer));
}
await rm(dir, { recursive: true, force: true });

const median = (stemmer: Stemmer, key: 'buildMs' | 'p50' | 'p99') =>
  percentile(
    runs[stemmer].map((run) => run[key]),
    50,
  );
const rows = (['none', 'porter'] as const).map((stemmer) => ({
  stemmer,
  build: median(stemmer, 'buildMs'),
  terms: runs[stemmer][0]!.terms,
  p50: median(stemmer, 'p50'),
  p99: median(stemmer, 'p99'),
}));
const base = rows[0]!;
const markdown = [
  '# Porter stemming in the in-process BM25 index',
  '',
  `- Command: \`${COMMAND} --documents ${documents}\``,
  `- Date: ${new Date().toISOString()}`,
  `- Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}; load average ${loadBefore} before, ${loadavg()[0]!.toFixed(1)} after (other work shares this machine)`,
  `- Data: ${documents.toLocaleString('en-US')} synthetic passages (\`bench/retrieval/synthetic-corpus.ts\`); ${QUERIES} queries taken from passages, top ${TOPK}, one at a time after 20 warm-up queries; each stemmer built and queried ${ROUNDS} times, alternating, medians shown`,
  '',
  '| stemmer | build | terms | query p50 | query p99 | build vs none | p50 vs none |',
  '| ------- | ----- | ----- | --------- | --------- | ------------- | ----------- |',
  ...rows.map(
    (row) =>
      `| ${row.stemmer === 'none' ? '`none` (corpora imported before stemming)' : '`porter` (default)'} | ${(row.build / 1000).toFixed(2)} s | ${row.terms.toLocaleString('en-US')} | ${row.p50.toFixed(2)} ms | ${row.p99.toFixed(2)} ms | ${(row.build / base.build).toFixed(2)}× | ${(row.p50 / base.p50).toFixed(2)}× |`,
  ),
  '',
  'The builder maps each distinct word to its term once, so a corpus pays for stemming per word of its',
  'vocabulary, not per occurrence, and a word costs one lookup stemmed or not; queries stem their few words',
  'through a cache. The synthetic words are made up, so stemming merges none of them (same term count): this',
  'is the cost alone. Build times swing by 2× run to run on this shared machine; compare the ratios.',
  '',
];
await writeResults(new URL('./STEMMING.md', import.meta.url), markdown.join('\n'));
console.log(markdown.join('\n'));
