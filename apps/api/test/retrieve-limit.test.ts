import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresTestDatabase, type PostgresTestDatabase } from '@fusebox/db/testing';
import type { Limiter } from '@fusebox/rate-limiter';
import { createPgLimiter } from '@fusebox/rate-limiter/pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningServer, runCli, startServer } from './serve-process';

/** How long a record may take to be committed after its answer: each look is a query, slow on a loaded machine. */
const RECORDED = { timeout: 30_000, interval: 200 };

// Postgres only: the limit is cluster-wide, so this test holds the permits from another connection, as another
// API process would.
describe('/retrieve under its own cluster-wide limiter key', () => {
  let database: PostgresTestDatabase;
  let server: RunningServer;
  const held: Limiter[] = [];
  beforeAll(async () => {
    database = await createPostgresTestDatabase();
    const corpus = join(await mkdtemp(join(tmpdir(), 'fusebox-retrieve-limit-')), 'tiny.jsonl');
    await writeFile(
      corpus,
      `${JSON.stringify({ id: '1', contents: '"Oslo"\nOslo is the capital of Norway.' })}\n`,
    );
    expect((await runCli(['corpus', 'import', corpus], database.env)).code).toBe(0);
    const tasks = join(await mkdtemp(join(tmpdir(), 'fusebox-retrieve-limit-')), 'tasks.jsonl');
    await writeFile(
      tasks,
      `${JSON.stringify({ instance_hash: '77', question: 'Capital of Norway?', answer: 'Oslo' })}\n`,
    );
    expect((await runCli(['tasks', 'import', tasks], database.env)).code).toBe(0);
    server = await startServer({
      ...database.env,
      FUSEBOX_RETRIEVE_MAX_CONCURRENCY: '1',
      FUSEBOX_MAX_CONCURRENCY: '1',
      FUSEBOX_LIMITER_TIMEOUT_S: '1',
    });
  });
  afterAll(async () => {
    await Promise.all(held.map((limiter) => limiter.close()));
    await server?.stop();
    await database?.drop();
  });

  const retrieve = () =>
    fetch(`${server.url}/retrieve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ queries: ['capital of norway'], topk: 1 }),
    });

  it('keeps answering while every code-execution permit is taken', async () => {
    const executions = await createPgLimiter({ connectionString: database.url, key: 'run_code', limit: 1 });
    held.push(executions);
    await executions.acquire();
    const answer = await retrieve();
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { result: { id: string }[][] }).result[0]![0]!.id).toBe('1');
  });

  it('answers 429 with Retry-After, and records it, when another process holds every search permit', async () => {
    const searches = await createPgLimiter({ connectionString: database.url, key: 'retrieve', limit: 1 });
    held.push(searches);
    await searches.acquire();
    const answer = await retrieve();
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBe('2');
    expect(((await answer.json()) as { detail: string }).detail).toMatch(/^no search permit came in time/);
    // A search session's query waits for the same key, and tells the model it could not search.
    const post = (path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.json() as Promise<Record<string, string>>);
    const { sid } = await post('/start_instance', { instance_hash: '77' });
    const observation = await post('/process_action', { sid, content: '<search>capital of norway</search>' });
    expect(observation.content).toMatch(/^Search failed: /);
    const reader = database.reader();
    try {
      // Committed just after the answer.
      await vi.waitFor(async () => {
        const refused = await reader.retrievalCall.findMany({
          where: { status: 429 },
          select: { corpusName: true },
        });
        expect(refused).toEqual([{ corpusName: 'tiny' }]);
      }, RECORDED);
    } finally {
      await reader.$disconnect();
    }
  });

  it('with FUSEBOX_RETRIEVE_LIMITER=process, counts only its own searches, in process', async () => {
    // Another process holds the only cluster-wide search permit (the test before took it).
    expect((await held[1]!.stats()).inFlight).toBe(1);
    const single = await startServer({
      ...database.env,
      FUSEBOX_RETRIEVE_MAX_CONCURRENCY: '1',
      FUSEBOX_LIMITER_TIMEOUT_S: '1',
      FUSEBOX_RETRIEVE_LIMITER: 'process',
    });
    try {
      const answer = await fetch(`${single.url}/retrieve`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ queries: ['capital of norway'], topk: 1 }),
      });
      expect(answer.status).toBe(200);
    } finally {
      await single.stop();
    }
  });
});
