import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '@fusebox/db/database';
import { createPostgresTestDatabase, type PostgresTestDatabase } from '@fusebox/db/testing';
import { importCorpus } from '@fusebox/retrieval';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEnv } from '../src/env';
import { buildServer } from '../src/server';

// The record of a /retrieve call is committed after its answer (FUSEBOX_RETRIEVE_RECORD_BUFFER), or before it
// with a buffer of 0. The test holds `retrieval_call` locked from another connection, as a slow database would:
// the answers must come (or not) while no record can be written, and closing the server must write them.
describe('/retrieve call records, committed off the answer’s path', () => {
  let database: PostgresTestDatabase;
  let opened: Database;
  let locker: pg.Client;
  beforeAll(async () => {
    database = await createPostgresTestDatabase();
    opened = await database.open();
    const corpus = join(await mkdtemp(join(tmpdir(), 'fusebox-retrieve-record-')), 'tiny.jsonl');
    await writeFile(
      corpus,
      `${JSON.stringify({ id: '1', contents: '"Oslo"\nOslo is the capital of Norway.' })}\n`,
    );
    await importCorpus(opened.sql, { path: corpus, name: 'tiny' });
    locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
  });
  afterAll(async () => {
    await locker?.end();
    await opened?.close();
    await database?.drop();
  });

  async function server(buffer: number, prisma = opened.prisma) {
    const env = readEnv({ ...database.env, FUSEBOX_RETRIEVE_RECORD_BUFFER: String(buffer) });
    const app = await buildServer({ env, prisma, startedAt: new Date() });
    await app.ready();
    const search = (query: string) =>
      app.inject({ method: 'POST', url: '/retrieve', payload: { queries: [query], topk: 1 } });
    return { app, search };
  }

  const recorded = async (queries: string[]) => {
    const { rows } = await opened.sql.query<{ query: string }>(
      `SELECT "queries"->>0 AS "query" FROM "retrieval_call" WHERE "status" = 200`,
    );
    return rows.map((row) => row.query).filter((query) => queries.includes(query));
  };

  /** Runs `body` while no row can be added to retrieval_call; resolves once the lock is given back. */
  async function withCallsLocked(body: () => Promise<void>) {
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE "retrieval_call" IN EXCLUSIVE MODE');
    try {
      await body();
    } finally {
      await locker.query('COMMIT');
    }
  }

  it('answers while the records cannot be written, and writes them all when the server closes', async () => {
    const { app, search } = await server(16);
    const queries = Array.from({ length: 5 }, (_, i) => `capital of norway ${i}`);
    let closing: Promise<void> | undefined;
    await withCallsLocked(async () => {
      const answers = await Promise.all(queries.map(search));
      expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 200, 200]);
      expect(await recorded(queries)).toEqual([]);
      // The server closes while its records wait for the lock; close must wait for them.
      closing = app.close();
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    await closing;
    expect((await recorded(queries)).sort()).toEqual(queries);
  });

  it('past the buffer, answers only once the record is committed', async () => {
    const { app, search } = await server(2);
    const queries = Array.from({ length: 3 }, (_, i) => `norway past the buffer ${i}`);
    let third: Promise<unknown> | undefined;
    let thirdAnswered = false;
    await withCallsLocked(async () => {
      const first = await Promise.all(queries.slice(0, 2).map(search));
      expect(first.map((answer) => answer.statusCode)).toEqual([200, 200]);
      third = search(queries[2]!).then((answer) => {
        thirdAnswered = true;
        return answer.statusCode;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(thirdAnswered).toBe(false);
    });
    expect(await third).toBe(200);
    expect((await recorded(queries)).sort()).toEqual(queries);
    await app.close();
  });

  it('with a buffer of 0, answers only once the record is committed', async () => {
    const { app, search } = await server(0);
    let answered = false;
    let answer: Promise<unknown> | undefined;
    await withCallsLocked(async () => {
      answer = search('norway recorded first').then((reply) => {
        answered = true;
        return reply.statusCode;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(answered).toBe(false);
    });
    expect(await answer).toBe(200);
    expect(await recorded(['norway recorded first'])).toEqual(['norway recorded first']);
    await app.close();
  });

  it('after a record is lost to a database that does not answer, records before answering until one commits', async () => {
    // Statements give up after 300 ms here, so a locked table reads as a database that does not answer.
    const impatient = await database.open({ statementTimeoutMs: 300 });
    const { app, search } = await server(16, impatient.prisma);
    try {
      const lost = 'norway lost record';
      let refused: number | undefined;
      await withCallsLocked(async () => {
        // Answered at once; its record then times out.
        expect((await search(lost)).statusCode).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        // Now the call waits for its own record, which cannot be written: 503, not an answer left unrecorded.
        refused = (await search('norway while down')).statusCode;
      });
      expect(refused).toBe(503);
      expect((await search('norway back')).statusCode).toBe(200);
      // Recorded before its answer: there now.
      expect(await recorded([lost, 'norway while down', 'norway back'])).toEqual(['norway back']);
    } finally {
      await app.close();
      await impatient.close();
    }
  });
});
