import type { PrismaClient } from '@fusebox/db/client';
import { createPostgresTestDatabase, type PostgresTestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from './serve-process';

// Every request that passed validation is in the execution table before its answer leaves: answered, refused
// (429), abandoned by its client, and when the database cannot take the row the client gets 503, never a 200
// that left no trace. Postgres only: a trigger stands in for a database that refuses one row.

/** Code containing this cannot be recorded: the trigger below refuses its row. */
const UNRECORDABLE = '#unrecordable';

describe('execution recording', () => {
  let database: PostgresTestDatabase;
  let server: RunningServer;
  let reader: PrismaClient;

  beforeAll(async () => {
    database = await createPostgresTestDatabase();
    const sql = await database.connectSql();
    await sql.exec(`
      CREATE FUNCTION refuse_marked_rows() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.code LIKE '%${UNRECORDABLE}%' THEN RAISE EXCEPTION 'this row is refused by the test'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_marked_rows BEFORE INSERT ON execution FOR EACH ROW EXECUTE FUNCTION refuse_marked_rows();
    `);
    await sql.close();
    server = await startServer({
      ...database.env,
      FUSEBOX_EXECUTOR_ISOLATION: 'none',
      FUSEBOX_MAX_CONCURRENCY: '1',
      FUSEBOX_LIMITER_TIMEOUT_S: '0.3',
    });
    reader = database.reader();
  }, 120_000);
  afterAll(async () => {
    await reader?.$disconnect();
    await server?.stop();
    await database?.drop();
  });

  const runCode = (code: string, signal?: AbortSignal) =>
    fetch(`${server.url}/run_code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, language: 'python' }),
      ...(signal ? { signal } : {}),
    });
  const rowsOf = (code: string) =>
    reader.execution.findMany({ where: { code }, select: { status: true, message: true, stdout: true } });

  it('has the row committed by the time the answer arrives', async () => {
    const codes = Array.from({ length: 5 }, (_, index) => `print(${index})`);
    // One after another: each is read right after its own answer, with nothing flushed or awaited in between.
    for (const code of codes) {
      const response = await runCode(code);
      expect(response.status).toBe(200);
      expect(await rowsOf(code)).toEqual([expect.objectContaining({ status: 'Success' })]);
    }
  });

  it('records a request refused with 429 before answering it', async () => {
    const busy = runCode('import time; time.sleep(1.5)');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const refusedCode = 'print("refused")';
    const refused = await runCode(refusedCode);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBeTruthy();
    expect(await rowsOf(refusedCode)).toEqual([
      expect.objectContaining({ status: 'Refused', message: expect.stringMatching(/^429 /) as unknown }),
    ]);
    expect((await busy).status).toBe(200);
  });

  it('records a request whose client went away', async () => {
    const code = 'import time; time.sleep(5)';
    const controller = new AbortController();
    const request = runCode(code, controller.signal).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 500));
    controller.abort();
    await request;
    await expect
      .poll(() => rowsOf(code), { timeout: 10_000 })
      .toEqual([expect.objectContaining({ status: 'Abandoned' })]);
  });

  it('answers 503 with Retry-After when the row cannot be written, and the other rows of its batch go in', async () => {
    const refusedRow = `print("lost") ${UNRECORDABLE}`;
    const neighbours = ['print("a")', 'print("b")'];
    const [lost, ...others] = await Promise.all([refusedRow, ...neighbours].map((code) => runCode(code)));
    expect(lost!.status).toBe(503);
    expect(lost!.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await lost!.json()) as { detail: string }).detail).toMatch(/could not be recorded/);
    for (const [index, response] of others.entries()) {
      // With one permit some neighbours may wait past the limiter timeout: either way each is recorded.
      expect([200, 429]).toContain(response.status);
      expect(await rowsOf(neighbours[index]!)).toHaveLength(1);
    }
    expect(await rowsOf(refusedRow)).toEqual([]);
  });
});
