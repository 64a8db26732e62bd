// /retrieve at the scale (#21): a synthetic corpus of 1M short passages imported with
// `fusebox corpus import`, then searched over loopback HTTP as verl's SearchTool calls it. Measures the
// import, the stored size, the first search (which builds the server's index), and /retrieve p50/p99 for one
// query and for a batch of 16, at concurrency 1 and 16, against the targets.
// Usage: node --conditions=@fusebox/source --import tsx bench/retrieval/run.ts [--documents 1000000]
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startServer } from './fusebox-server';
import { percentile, retrieve as retrieveAt, rssMb } from './retrieve-client';
import { SyntheticCorpus, writeSyntheticCorpus } from './synthetic-corpus';
import { FUSEBOX, runFusebox } from '../run-fusebox';
import { writeResults } from '../write-results';

const COMMAND = 'node --conditions=@fusebox/source --import tsx bench/retrieval/run.ts';
const DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/fusebox_bench_retrieval';
const API_PORT = 18380;
const CORPUS = 'bench';
const TOPK = 3;
/** Requests per measured cell, spread over the clients. */
const REQUESTS = { single: 600, batch: 160 };
const BATCH = 16;
/** The targets on this 2-core VM. */
const TARGET = { importS: 300, singleP50Ms: 10 };

const { values: options } = parseArgs({ options: { documents: { type: 'string', default: '1000000' } } });
const documents = Number(options.documents);

const retrieve = (queries: string[]) => retrieveAt(API_PORT, queries, TOPK);

/** `requests` calls spread over `clients` loops, each waiting for its answer before the next. */
async function load(clients: number, requests: number, next: (i: number) => string[]) {
  const ms: number[] = [];
  let issued = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (issued < requests) ms.push(await retrieve(next(issued++)));
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { p50: percentile(ms, 50), p99: percentile(ms, 99), perSecond: requests / seconds };
}

const dir = await mkdtemp(join(tmpdir(), 'fusebox-bench-retrieval-'));
const path = join(dir, 'corpus.jsonl');
const corpus = new SyntheticCorpus();
const loadBefore = loadavg()[0]!.toFixed(1);
const samples = await writeSyntheticCorpus(path, documents, corpus);
const fileMb = Math.round((await stat(path)).size / 1e6);
const queries = Array.from({ length: 2000 }, (_, i) => corpus.queryFrom(samples[i % samples.length]!));

const admin = new pg.Client({ connectionString: DATABASE_URL.replace(/\/[^/]+$/, '/postgres') });
await admin.connect();
await admin.query('DROP DATABASE IF EXISTS fusebox_bench_retrieval WITH (FORCE)');
const migrated = await runFusebox(['db', 'migrate'], { DATABASE_URL });
if (migrated.code !== 0) throw new Error(migrated.out);
const imported = await runFusebox(['corpus', 'import', path, '--name', CORPUS], { DATABASE_URL });
if (imported.code !== 0) throw new Error(imported.out);
const reimported = await runFusebox(['corpus', 'import', path, '--name', CORPUS], { DATABASE_URL });
const db = new pg.Client({ connectionString: DATABASE_URL });
await db.connect();
const [{ size }] = (
  await db.query<{ size: string }>(
    `SELECT pg_size_pretty(pg_total_relation_size('retrieval_document')) AS size`,
  )
).rows as [{ size: string }];
await db.end();

let server: ChildProcess | undefined;
try {
  server = await startServer(FUSEBOX, API_PORT, {
    DATABASE_URL,
    // Building a 1M-passage index on a loaded machine, a page of passages read for it outlasted the default
    // 5 s statement timeout (the first search answered 503, 2026-11-26).
    FUSEBOX_DB_STATEMENT_TIMEOUT_MS: '120000',
  });
  const rssBefore = await rssMb(server.pid!);
  const firstSearchMs = await retrieve([queries[0]!]);
  const rssAfter = await rssMb(server.pid!);
  await load(4, 100, (i) => [queries[i % queries.length]!]); // warm-up

  const single = (i: number) => [queries[i % queries.length]!];
  const batch = (i: number) =>
    Array.from({ length: BATCH }, (_, j) => queries[(i * BATCH + j) % queries.length]!);
  const cells = {
    single1: await load(1, REQUESTS.single, single),
    single16: await load(16, REQUESTS.single, single),
    batch1: await load(1, REQUESTS.batch, batch),
    batch16: await load(16, REQUESTS.batch, batch),
  };

  const ms = (value: number) => `${value.toFixed(1)} ms`;
  const row = (name: string, cell: (typeof cells)['single1'], target = '–', ratio = '–') =>
    `| ${name} | ${ms(cell.p50)} | ${ms(cell.p99)} | ${Math.round(cell.perSecond)} | ${target} | ${ratio} |`;
  const importS = imported.ms / 1000;
  const markdown = [
    '# /retrieve at scale',
    '',
    `- Command: \`${COMMAND} --documents ${documents}\``,
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}; load average ${loadBefore} before, ${loadavg()[0]!.toFixed(1)} after (other work shares this machine)`,
    `- Data: ${documents.toLocaleString('en-US')} synthetic passages (\`bench/retrieval/synthetic-corpus.ts\`, 30–90 words), ${fileMb} MB of JSONL; queries of 5–10 words from passages, \`topk\` ${TOPK}, \`return_scores\` true, as verl's SearchTool sends them; one \`fusebox serve\` on Postgres (default settings: 4 searches at once)`,
    '',
    '| measure | result | target (#21) | result / target |',
    '| --- | --- | --- | --- |',
    `| \`fusebox corpus import\` of ${documents.toLocaleString('en-US')} passages | ${importS.toFixed(1)} s | ≤ ${TARGET.importS} s | ${(importS / TARGET.importS).toFixed(2)} |`,
    `| re-import of the same file (adds nothing) | ${(reimported.ms / 1000).toFixed(1)} s | – | – |`,
    `| \`retrieval_document\` in Postgres (with its key) | ${size} | – | – |`,
    `| first search (the server builds its index) | ${(firstSearchMs / 1000).toFixed(1)} s | – | – |`,
    `| server memory before → after the index | ${rssBefore} → ${rssAfter} MB | – | – |`,
    `| single query, p50 at concurrency 1 | ${ms(cells.single1.p50)} | ≤ ${TARGET.singleP50Ms} ms | ${(cells.single1.p50 / TARGET.singleP50Ms).toFixed(2)} |`,
    '',
    '| /retrieve | p50 | p99 | requests/s | target | p50 / target |',
    '| --- | --- | --- | --- | --- | --- |',
    row(
      '1 query, concurrency 1',
      cells.single1,
      `p50 ≤ ${TARGET.singleP50Ms} ms`,
      (cells.single1.p50 / TARGET.singleP50Ms).toFixed(2),
    ),
    row('1 query, concurrency 16', cells.single16),
    row(`batch of ${BATCH}, concurrency 1`, cells.batch1),
    row(`batch of ${BATCH}, concurrency 16`, cells.batch16),
    '',
    'Times are wall-clock at the client over loopback HTTP, including JSON both ways; each call is recorded in',
    '`retrieval_call` after its answer. At concurrency 16, requests beyond FUSEBOX_RETRIEVE_MAX_CONCURRENCY queue for a permit.',
  ].join('\n');
  await writeResults(new URL('./RESULTS.md', import.meta.url), markdown);
  console.log(markdown);
} finally {
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await once(server, 'exit');
  }
  await admin.query('DROP DATABASE IF EXISTS fusebox_bench_retrieval WITH (FORCE)');
  await admin.end();
  await rm(dir, { recursive: true, force: true });
}
