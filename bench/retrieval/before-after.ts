// /retrieve on 1M passages before and after the search path's changes (#21), side by side in one run: one
// `fusebox serve` of a start commit's checkout (--before DIR, e.g. made with `git archive`) and servers of this
// checkout in several settings, all on one Postgres database holding one imported synthetic corpus. Each cell
// (one query, topk 3, at concurrency 1 and 8, over loopback HTTP as verl's SearchTool sends it) runs in rounds
// that alternate between the servers, so the machine's load falls on all of them alike.
// Usage: node --conditions=@fusebox/source --import tsx bench/retrieval/before-after.ts --before DIR [--documents 1000000]
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { corpusDatabase, firstSearch, startServer, stopServers } from './fusebox-server';
import { percentile, retrieve as retrieveAt, rssMb } from './retrieve-client';
import { SyntheticCorpus, writeSyntheticCorpus } from './synthetic-corpus';
import { FUSEBOX } from '../run-fusebox';
import { writeResults } from '../write-results';

const COMMAND = 'node --conditions=@fusebox/source --import tsx bench/retrieval/before-after.ts';
const DATABASE = 'fusebox_bench_retrieval_ab';
const DATABASE_URL = `postgresql://postgres@127.0.0.1:5432/${DATABASE}`;
const CORPUS = 'bench';
const TOPK = 3;
const ROUNDS = 4;
/** Requests per cell and server, over all rounds. */
const REQUESTS = 400;
const CONCURRENCY = [1, 8];

const { values: options } = parseArgs({
  options: {
    documents: { type: 'string', default: '1000000' },
    before: { type: 'string' },
    'before-commit': { type: 'string', default: '' },
    /** Which of SETUPS to run, by position (default: 0-4). */
    setups: { type: 'string', default: '0,1,2,3,4' },
    out: { type: 'string', default: 'BEFORE-AFTER.md' },
  },
});
if (!options.before) throw new Error('--before DIR: a checkout of the start commit, with node_modules');
const documents = Number(options.documents);

interface Setup {
  name: string;
  bin: string;
  env: Record<string, string>;
}
const ALL_SETUPS: Setup[] = [
  {
    name: `before (${options['before-commit'] || 'start commit'})`,
    bin: join(options.before, 'apps/api/bin/fusebox.js'),
    env: {},
  },
  { name: 'after, defaults (Postgres permit, record after the answer)', bin: FUSEBOX, env: {} },
  { name: 'after, in-process permit', bin: FUSEBOX, env: { FUSEBOX_RETRIEVE_LIMITER: 'process' } },
  { name: 'after, record before the answer', bin: FUSEBOX, env: { FUSEBOX_RETRIEVE_RECORD_BUFFER: '0' } },
  {
    name: 'after, passages read from Postgres',
    bin: FUSEBOX,
    env: { FUSEBOX_RETRIEVE_PASSAGE_MEMORY_MB: '0' },
  },
  {
    name: 'after, in-process permit, record before the answer',
    bin: FUSEBOX,
    env: { FUSEBOX_RETRIEVE_LIMITER: 'process', FUSEBOX_RETRIEVE_RECORD_BUFFER: '0' },
  },
];
const SETUPS = ALL_SETUPS.filter((_, i) => options.setups.split(',').map(Number).includes(i));

const retrieve = (port: number, queries: string[]) => retrieveAt(port, queries, TOPK);
let sent = 0;
/** `requests` calls spread over `clients` loops, each waiting for its answer before the next. */
async function load(port: number, clients: number, requests: number, next: () => string) {
  const ms: number[] = [];
  let issued = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (issued++ < requests) {
        sent += 1;
        ms.push(await retrieve(port, [next()]));
      }
    }),
  );
  return ms;
}

const dir = await mkdtemp(join(tmpdir(), 'fusebox-bench-retrieval-ab-'));
const path = join(dir, 'corpus.jsonl');
const corpus = new SyntheticCorpus();
const loadBefore = loadavg()[0]!.toFixed(1);
const samples = await writeSyntheticCorpus(path, documents, corpus);
const queries = Array.from({ length: 2000 }, (_, i) => corpus.queryFrom(samples[i % samples.length]!));
let nextQuery = 0;
const query = () => queries[nextQuery++ % queries.length]!;

const database = await corpusDatabase(DATABASE_URL, path, CORPUS);
const servers: ChildProcess[] = [];
try {
  console.log(`imported ${documents} passages in ${(database.importMs / 1000).toFixed(1)} s`);

  // One server at a time up to listening (their starts, loading the builtin tasks in one transaction each, time
  // out when they all run at once on a loaded machine); each builds its index once listening, so those overlap.
  const started: (Setup & { port: number; server: ChildProcess })[] = [];
  for (const [i, setup] of SETUPS.entries()) {
    const port = 18390 + i;
    const server = await startServer(setup.bin, port, {
      ...setup.env,
      DATABASE_URL,
      // Five servers reading 1M passages at once for their indexes are slow to be answered on 2 cores.
      FUSEBOX_DB_STATEMENT_TIMEOUT_MS: '120000',
      // Each server its own limiter keys, so that none waits for another's permits.
      FUSEBOX_LIMITER_KEY: `run_code_${i}`,
      FUSEBOX_RETRIEVE_LIMITER_KEY: `retrieve_${i}`,
    });
    servers.push(server);
    started.push({ ...setup, port, server });
  }
  // The first search waits for the server's index.
  const ready = await Promise.all(
    started.map(async (setup) => ({ ...setup, firstMs: await firstSearch(setup.port, query(), TOPK) })),
  );
  for (const setup of ready) await load(setup.port, 4, 100, query); // warm-up

  const results = new Map<string, number[]>();
  for (const clients of CONCURRENCY) {
    for (let round = 0; round < ROUNDS; round++) {
      // Each round starts with another server, so none is always first after a pause.
      for (let k = 0; k < ready.length; k++) {
        const setup = ready[(round + k) % ready.length]!;
        const key = `${setup.name}@${clients}`;
        const ms = await load(setup.port, clients, REQUESTS / ROUNDS, query);
        results.set(key, [...(results.get(key) ?? []), ...ms]);
      }
    }
  }

  const rssAfterMb = await Promise.all(ready.map((setup) => rssMb(setup.server.pid!)));
  await stopServers(servers);
  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  const recorded = Number(
    (await db.query<{ n: string }>(`SELECT count(*) AS n FROM "retrieval_call" WHERE "status" = 200`))
      .rows[0]!.n,
  );
  await db.end();

  const ms = (value: number) => `${value.toFixed(1)} ms`;
  // Ratios are to the first server run (the start commit's, unless --setups leaves it out).
  const base = (clients: number) => results.get(`${ready[0]!.name}@${clients}`)!;
  const rows = ready.flatMap((setup, i) =>
    CONCURRENCY.map((clients) => {
      const cell = results.get(`${setup.name}@${clients}`)!;
      const p50 = percentile(cell, 50);
      const ratio = (p50 / percentile(base(clients), 50)).toFixed(2);
      return `| ${setup.name} | ${clients} | ${ms(p50)} | ${ms(percentile(cell, 95))} | ${ratio} | ${rssAfterMb[i]} MB |`;
    }),
  );
  const markdown = [
    `# /retrieve on ${documents.toLocaleString('en-US')} passages: before and after, side by side`,
    '',
    `- Command: \`${COMMAND} --before DIR --documents ${documents} --setups ${options.setups} --out ${options.out}\`, DIR a checkout of the start commit${options['before-commit'] ? ` (${options['before-commit']})` : ''}`,
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}; load average ${loadBefore} before, ${loadavg()[0]!.toFixed(1)} after (other work shares this machine)`,
    `- Data: ${documents.toLocaleString('en-US')} synthetic passages imported once into Postgres; ${SETUPS.length} \`fusebox serve\` on it at once, each with its own limiter keys (FUSEBOX_RETRIEVE_MAX_CONCURRENCY 4); one query of 5–10 words per request, \`topk\` ${TOPK}, \`return_scores\` true; ${REQUESTS} requests per server and concurrency, in ${ROUNDS} rounds alternating between the servers`,
    '',
    `| server | concurrency | p50 | p95 | p50 / ${ready[0]!.name.startsWith('before') ? 'before' : 'first server'} | server memory |`,
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    `Times are wall-clock at the client over loopback HTTP. Server memory is its RSS after the runs (the index,`,
    `and for the servers after the change the passages kept in memory). First search (waits for the index):`,
    ready.map((setup) => `${setup.name} ${(setup.firstMs / 1000).toFixed(1)} s`).join('; ') + '.',
    `Calls answered 200: ${sent + ready.length} sent, ${recorded} in \`retrieval_call\` after the servers stopped (SIGTERM).`,
  ].join('\n');
  await writeResults(new URL(`./${options.out}`, import.meta.url), markdown);
  console.log(markdown);
} finally {
  await stopServers(servers);
  await database.drop();
  await rm(dir, { recursive: true, force: true });
}
