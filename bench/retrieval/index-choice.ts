// Which BM25 index serves /retrieve: measured before choosing. The same synthetic corpus goes into (a) the
// in-process index of @fusebox/retrieval, (b) a Postgres posting table with BM25 summed in SQL (weights
// precomputed at build time: the best case for SQL), and (c) Postgres full-text search (tsvector + GIN, ranked
// by ts_rank: not BM25, for scale only). Each answers the same single queries for the top 3.
// Usage: node --conditions=@fusebox/source --import tsx bench/retrieval/index-choice.ts [--documents 100000]
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { connectPostgres, pgSqlClient, type SqlClient } from '@fusebox/db/sql-client';
import { readLines } from '@fusebox/rollouts';
import { Bm25IndexBuilder, PYSERINI_BM25, bm25Terms } from '@fusebox/retrieval';
import { SyntheticCorpus, writeSyntheticCorpus } from './synthetic-corpus';
import { writeResults } from '../write-results';

const COMMAND = 'node --conditions=@fusebox/source --import tsx bench/retrieval/index-choice.ts';
const SERVER_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';
const DATABASE = 'fusebox_bench_retrieval_index';
const QUERIES = 300;
const TOPK = 3;

const { values: options } = parseArgs({ options: { documents: { type: 'string', default: '100000' } } });
const documents = Number(options.documents);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function timeQueries(queries: string[], search: (query: string) => unknown) {
  for (const query of queries.slice(0, 20)) await search(query); // warm-up
  const ms: number[] = [];
  for (const query of queries) {
    const started = performance.now();
    await search(query);
    ms.push(performance.now() - started);
  }
  return { p50: percentile(ms, 50), p99: percentile(ms, 99) };
}

async function* corpusLines(path: string): AsyncGenerator<{ id: string; contents: string }> {
  for await (const line of readLines(path, 0))
    yield JSON.parse(line.text) as { id: string; contents: string };
}

async function inProcess(path: string, queries: string[]) {
  const before = process.memoryUsage();
  const started = performance.now();
  const builder = new Bm25IndexBuilder();
  for await (const document of corpusLines(path)) builder.add(document.contents);
  const index = builder.build();
  const buildMs = performance.now() - started;
  const after = process.memoryUsage();
  const bytes = after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers;
  const timing = await timeQueries(queries, (query) => index.search(query, TOPK));
  return { buildMs, bytes, ...timing };
}

async function tableBytes(sql: SqlClient, table: string): Promise<number> {
  const { rows } = await sql.query<{ bytes: string }>(`SELECT pg_total_relation_size($1)::text AS bytes`, [
    table,
  ]);
  return Number(rows[0]!.bytes);
}

async function postgresPostings(sql: SqlClient, path: string, queries: string[]) {
  const started = performance.now();
  // Pass 1: lengths, for avgdl; pass 2: one row per (term, document) with its BM25 document factor.
  const lengths: number[] = [];
  for await (const document of corpusLines(path)) lengths.push(bm25Terms(document.contents).length);
  const averageLength = lengths.reduce((sum, length) => sum + length, 0) / lengths.length;
  const { k1, b } = PYSERINI_BM25;
  await sql.exec(
    `CREATE TABLE "posting" ("term" TEXT COLLATE "C" NOT NULL, "doc" INTEGER NOT NULL, "w" REAL NOT NULL)`,
  );
  await sql.transaction(async (tx) => {
    async function* rows() {
      let doc = 0;
      for await (const document of corpusLines(path)) {
        const counts = new Map<string, number>();
        for (const term of bm25Terms(document.contents)) counts.set(term, (counts.get(term) ?? 0) + 1);
        const norm = 1 - b + (b * lengths[doc]!) / averageLength;
        for (const [term, tf] of counts)
          yield `${term === 'null' ? '"null"' : term},${doc},${tf / (tf + k1 * norm)}\n`;
        doc += 1;
      }
    }
    await tx.copyCsv('"posting" ("term", "doc", "w")', rows());
  });
  await sql.exec(`CREATE INDEX "posting_term" ON "posting" ("term", "doc") INCLUDE ("w")`);
  await sql.exec(
    `CREATE TABLE "term" AS SELECT "term", ln(1 + (${lengths.length} - count(*) + 0.5) / (count(*) + 0.5)) AS "idf"
     FROM "posting" GROUP BY "term"; ALTER TABLE "term" ADD PRIMARY KEY ("term")`,
  );
  await sql.exec(`VACUUM ANALYZE "posting"`);
  const buildMs = performance.now() - started;
  const bytes = (await tableBytes(sql, 'posting')) + (await tableBytes(sql, 'term'));
  const timing = await timeQueries(queries, (query) =>
    sql.query(
      `SELECT p."doc", sum(t."idf" * p."w") AS "score" FROM "term" t JOIN "posting" p ON p."term" = t."term"
       WHERE t."term" = ANY($1) GROUP BY p."doc" ORDER BY "score" DESC, p."doc" LIMIT $2`,
      [bm25Terms(query), TOPK],
    ),
  );
  return { buildMs, bytes, ...timing };
}

async function postgresFullText(sql: SqlClient, path: string, queries: string[]) {
  const started = performance.now();
  await sql.exec(`CREATE TABLE "document" ("doc" INTEGER PRIMARY KEY, "contents" TEXT NOT NULL)`);
  await sql.transaction(async (tx) => {
    async function* rows() {
      let doc = 0;
      for await (const document of corpusLines(path))
        yield `${doc++},"${document.contents.replaceAll('"', '""')}"\n`;
    }
    await tx.copyCsv('"document" ("doc", "contents")', rows());
  });
  await sql.exec(
    `ALTER TABLE "document" ADD COLUMN "tsv" tsvector GENERATED ALWAYS AS (to_tsvector('english', "contents")) STORED;
     CREATE INDEX "document_tsv" ON "document" USING GIN ("tsv")`,
  );
  await sql.exec(`VACUUM ANALYZE "document"`);
  const buildMs = performance.now() - started;
  const bytes = await tableBytes(sql, 'document');
  const timing = await timeQueries(queries, (query) =>
    sql.query(
      `SELECT "doc" FROM "document", to_tsquery('english', $1) AS q WHERE "tsv" @@ q
       ORDER BY ts_rank("tsv", q) DESC LIMIT $2`,
      [bm25Terms(query).join(' | '), TOPK],
    ),
  );
  return { buildMs, bytes, ...timing };
}

const dir = await mkdtemp(join(tmpdir(), 'fusebox-bench-retrieval-'));
const path = join(dir, 'corpus.jsonl');
const corpus = new SyntheticCorpus();
const loadBefore = loadavg()[0]!.toFixed(1);
const samples = await writeSyntheticCorpus(path, documents, corpus);
const queries = Array.from({ length: QUERIES }, (_, i) => corpus.queryFrom(samples[i % samples.length]!));

const admin = pgSqlClient(await connectPostgres(SERVER_URL));
await admin.exec(`DROP DATABASE IF EXISTS ${DATABASE}`);
await admin.exec(`CREATE DATABASE ${DATABASE}`);
const sql = pgSqlClient(await connectPostgres(SERVER_URL.replace(/postgres$/, DATABASE)));
try {
  const memory = await inProcess(path, queries);
  console.error('in-process done', memory);
  const postings = await postgresPostings(sql, path, queries);
  console.error('posting table done', postings);
  const fullText = await postgresFullText(sql, path, queries);
  console.error('full text done', fullText);

  const mb = (bytes: number) => `${Math.round(bytes / 1e6)} MB`;
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const q = (ms: number) => `${ms.toFixed(2)} ms`;
  const ratio = (ms: number) => `${(ms / memory.p50).toFixed(0)}×`;
  const row = (name: string, r: typeof memory, size: string) =>
    `| ${name} | ${s(r.buildMs)} | ${size} | ${q(r.p50)} | ${q(r.p99)} | ${ratio(r.p50)} |`;
  const markdown = [
    '# Choosing the BM25 index for /retrieve',
    '',
    `- Command: \`${COMMAND} --documents ${documents}\``,
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}; load average ${loadBefore} before, ${loadavg()[0]!.toFixed(1)} after (other work shares this machine)`,
    `- Data: ${documents.toLocaleString('en-US')} synthetic passages (\`bench/retrieval/synthetic-corpus.ts\`, 30–90 words each); ${QUERIES} queries of 5–10 words taken from passages, top ${TOPK}, one at a time after 20 warm-up queries`,
    '',
    '| index | build | size | query p50 | query p99 | p50 vs in-process |',
    '| --- | --- | --- | --- | --- | --- |',
    row('in-process BM25 (`Bm25Index`, chosen)', memory, `${mb(memory.bytes)} of memory`),
    row('Postgres posting table, BM25 summed in SQL', postings, `${mb(postings.bytes)} on disk`),
    row(
      'Postgres full text (tsvector + GIN, `ts_rank`: not BM25)',
      fullText,
      `${mb(fullText.bytes)} on disk`,
    ),
    '',
    'Build times include reading and parsing the JSONL file. The in-process build is what a server does on the',
    'first search of a corpus (reading passages from the database instead of the file); the Postgres builds are',
    'what an import would add. Query times for Postgres are one round trip over loopback from this process.',
  ].join('\n');
  await writeResults(new URL(`./INDEX-CHOICE.md`, import.meta.url), markdown);
  console.log(markdown);
} finally {
  await sql.close();
  await admin.exec(`DROP DATABASE IF EXISTS ${DATABASE}`);
  await admin.close();
  await rm(dir, { recursive: true, force: true });
}
