import { execFile } from 'node:child_process';
import { request } from 'node:http';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { PrismaClient } from '@fusebox/db/client';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { retrieveResponseSchema } from '../src/routes/retrieve';
import { type RunningServer, runCli, startServer } from './serve-process';

const CLIENT = fileURLToPath(new URL('./python/verl_search_client.py', import.meta.url));

const passage = (id: string, title: string, text: string) =>
  JSON.stringify({ id, contents: `"${title}"\n${text}` });

const WIKI = [
  passage('0', 'Hamlet', 'Hamlet is a tragedy written by William Shakespeare around 1600.'),
  passage('1', 'Paris', 'Paris is the capital and largest city of France, on the Seine.'),
  '{"id": "2", "contents": "unterminated',
  passage('3', 'Macbeth', 'Macbeth is a tragedy by William Shakespeare, first performed in 1606.'),
  passage('4', 'Seine', 'The Seine is a river in northern France that flows through Paris.'),
];

async function corpusFile(name: string, lines: string[]): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'fusebox-retrieve-')), name);
  await writeFile(path, lines.map((line) => `${line}\n`).join(''));
  return path;
}

async function post(url: string, body: unknown) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const answer: unknown = await response.json();
  return { status: response.status, body: answer };
}

/** How long a record may take to be committed after its answer: each look is a query, slow on a loaded machine. */
const RECORDED = { timeout: 30_000, interval: 200 };

describe('POST /retrieve, as verl’s SearchTool and Search-R1 call it, on a corpus from `fusebox corpus import`', () => {
  let database: TestDatabase;
  let server: RunningServer;
  let reader: PrismaClient;
  beforeAll(async () => {
    database = await createTestDatabase();
    const imported = await runCli(['corpus', 'import', await corpusFile('wiki.jsonl', WIKI)], database.env);
    expect(imported.stderr).toContain('wiki.jsonl:3: not JSON');
    expect(imported.stdout).toContain('corpus "wiki": imported 4 passages');
    expect(imported.code).toBe(0);
    server = await startServer(database.env);
    reader = database.reader();
  });
  afterAll(async () => {
    await reader?.$disconnect();
    await server?.stop();
    await database?.drop();
  });

  it("answers verl's request in Search-R1's shape, and verl's formatting reads it", async () => {
    const { stdout } = await promisify(execFile)(
      '/usr/bin/python3',
      [
        CLIENT,
        `${server.url}/retrieve`,
        JSON.stringify(['hamlet shakespeare tragedy', 'river through paris']),
        '2',
      ],
      { timeout: 60_000 },
    );
    const { status, body, text } = JSON.parse(stdout) as {
      status: number;
      body: { result: { document: { id: string; contents: string }; score: number }[][] };
      text: string;
    };
    expect(status).toBe(200);
    expect(retrieveResponseSchema.safeParse(body).error).toBeUndefined();
    expect(body.result).toHaveLength(2);
    expect(body.result.map((docs) => docs.map((doc) => doc.document.id))).toEqual([
      ['0', '3'],
      ['4', '1'],
    ]);
    expect(Object.keys(body.result[0]![0]!)).toEqual(['document', 'score']);
    expect(body.result[0]![0]!.document).toEqual({
      id: '0',
      contents: '"Hamlet"\nHamlet is a tragedy written by William Shakespeare around 1600.',
    });
    expect(body.result[0]![0]!.score).toBeGreaterThan(body.result[0]![1]!.score);
    expect(text.split('\n---\n')[0]).toBe(
      'Doc 1 (Title: "Hamlet")\nHamlet is a tragedy written by William Shakespeare around 1600.\n\n' +
        'Doc 2 (Title: "Macbeth")\nMacbeth is a tragedy by William Shakespeare, first performed in 1606.',
    );
  });

  it('builds the corpus index when the server starts, before any search asks for it', async () => {
    await vi.waitFor(
      () =>
        expect(server.output()).toContain(
          'search indexes built: [{\\"name\\":\\"wiki\\",\\"documents\\":4}]',
        ),
      {
        timeout: 60_000,
        interval: 200,
      },
    );
  });

  it('answers the documents alone without return_scores, and 3 of them by default', async () => {
    const { status, body } = await post(`${server.url}/retrieve`, {
      queries: ['tragedy shakespeare france'],
    });
    expect(status).toBe(200);
    const [documents] = (body as { result: { id: string; contents: string }[][] }).result;
    expect(documents).toHaveLength(3);
    expect(Object.keys(documents![0]!)).toEqual(['id', 'contents']);
  });

  it('answers and records a query holding what Postgres cannot store: NUL, an unpaired surrogate', async () => {
    const query = 'hamlet\0 \uD800 tragedy';
    const { status } = await post(`${server.url}/retrieve`, { queries: [query] });
    expect(status).toBe(200);
    await vi.waitFor(async () => {
      const calls = await reader.retrievalCall.findMany({ select: { queries: true } });
      expect(calls).toContainEqual({ queries: ['hamlet\uFFFD \uFFFD tragedy'] });
    }, RECORDED);
  });

  it('refuses bad requests with a 4xx naming the problem, and records every call', async () => {
    const cases: [unknown, number, RegExp][] = [
      [{ queries: [], topk: 3 }, 422, /queries: expected at least one query/],
      [{ queries: ['x'], topk: 0 }, 422, /topk: topk must be at least 1/],
      [{ queries: ['x'], topk: 10_000 }, 422, /topk: topk may be at most 100 \(FUSEBOX_RETRIEVE_MAX_TOPK\)/],
      [{ queries: ['  '], topk: 3 }, 422, /queries\.0: the query is empty/],
      [{ queries: 'hamlet' }, 422, /queries: expected a list of query strings/],
      [[1, 2], 422, /expected a JSON object/],
      ['{"queries": ["a"', 400, /JSON/],
    ];
    for (const [body, status, detail] of cases) {
      const answer = await post(`${server.url}/retrieve`, body);
      expect({ body, status: answer.status }).toEqual({ body, status });
      expect((answer.body as { detail: string }).detail).toMatch(detail);
    }
    // Fastify's own refusals, made before the route: of another content type (415), and not JSON (400, above).
    const xml = await fetch(`${server.url}/retrieve`, {
      method: 'POST',
      headers: { 'content-type': 'text/xml' },
      body: '<queries/>',
    });
    expect(xml.status).toBe(415);
    const unknown = await post(`${server.url}/retrieve/nope`, { queries: ['x'] });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({
      code: 'FUSEBOX_RETRIEVAL_UNKNOWN_CORPUS',
      detail: 'no corpus named "nope"; imported: "wiki"',
    });

    // Each call is committed just after its answer.
    await vi.waitFor(async () => {
      const calls = await reader.retrievalCall.findMany({ select: { status: true, corpusName: true } });
      expect(calls.filter((call) => call.status === 200).length).toBeGreaterThanOrEqual(2);
      expect(calls.filter((call) => call.status === 422).length).toBeGreaterThanOrEqual(6);
      expect(calls).toContainEqual({ status: 404, corpusName: 'nope' });
      expect(calls).toContainEqual({ status: 400, corpusName: '' });
      expect(calls).toContainEqual({ status: 415, corpusName: '' });
    }, RECORDED);
    const verlCall = await reader.retrievalCall.findFirst({
      where: { status: 200, corpusName: 'wiki' },
      orderBy: { createdAt: 'asc' },
      select: { queries: true, topk: true, results: true },
    });
    expect(verlCall).toMatchObject({
      queries: ['hamlet shakespeare tragedy', 'river through paris'],
      topk: 2,
      results: [
        [{ id: '0' }, { id: '3' }],
        [{ id: '4' }, { id: '1' }],
      ],
    });
  });

  it('takes a body its own bounds allow past Fastify’s default 1 MiB: 300 queries of 4,000 characters', async () => {
    const queries = Array.from({ length: 300 }, (_, index) => `${'hamlet '.repeat(570)}${index}`);
    const answer = await post(`${server.url}/retrieve`, { queries, topk: 1 });
    expect(answer.status).toBe(200);
    expect((answer.body as { result: unknown[] }).result).toHaveLength(300);
  });

  it('with several corpora, searches the one the path names and asks for a name otherwise', async () => {
    const other = await corpusFile('recipes.jsonl', [
      passage('r1', 'Crepe', 'A crepe is a thin pancake from France.'),
    ]);
    // Embedded, the server holds the data directory, so the import waits for it to stop.
    await server.stop();
    const imported = await runCli(['corpus', 'import', other, '--name', 'recipes'], database.env);
    expect(imported.code).toBe(0);
    server = await startServer(database.env);
    const named = await post(`${server.url}/retrieve/recipes`, { queries: ['pancake france'], topk: 5 });
    expect((named.body as { result: { id: string }[][] }).result).toEqual([
      [{ id: 'r1', contents: '"Crepe"\nA crepe is a thin pancake from France.' }],
    ]);
    const unnamed = await post(`${server.url}/retrieve`, { queries: ['pancake'] });
    expect(unnamed.status).toBe(400);
    expect((unnamed.body as { detail: string }).detail).toBe(
      '2 corpora are imported ("recipes", "wiki"); name one in the path (/retrieve/NAME) or with FUSEBOX_RETRIEVE_CORPUS',
    );
  });

  // On Postgres only: it reads the records after the server has stopped, and the embedded database's reader
  // needs the server that holds it (a test-harness limit, not the recorder's).
  it.skipIf(process.env.FUSEBOX_TEST_DATABASE_MODE === 'embedded')(
    'records a call answered when its client hung up, and the calls answered just before the server stops',
    async () => {
      // A client that sends its search and goes away before the answer: the search is still answered, so recorded.
      await new Promise<void>((resolve, reject) => {
        const gone = request(`${server.url}/retrieve/wiki`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
        });
        gone.on('error', reject);
        gone.end(JSON.stringify({ queries: ['hung up hamlet'], topk: 1 }), () => {
          gone.destroy();
          resolve();
        });
      });
      // Twenty calls answered, then SIGTERM at once: the records still in memory are written before it exits.
      const queries = Array.from({ length: 20 }, (_, i) => `paris before stop ${i}`);
      const answers = await Promise.all(
        queries.map((query) => post(`${server.url}/retrieve/wiki`, { queries: [query] })),
      );
      expect(answers.map((answer) => answer.status)).toEqual(queries.map(() => 200));
      // (Its exit code is not the point: on a loaded machine the executor's shutdown can outlast the deadline.)
      await server.stop();
      const wanted = [...queries, 'hung up hamlet'];
      const recorded = await reader.retrievalCall.findMany({
        where: { status: 200 },
        select: { queries: true },
      });
      const found = recorded
        .map((call) => (call.queries as string[])[0]!)
        .filter((query) => wanted.includes(query));
      expect(found.sort()).toEqual(wanted.sort());
    },
  );
});
