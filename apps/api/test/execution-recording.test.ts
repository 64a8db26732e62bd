import { randomUUID } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PrismaClient } from '@fusebox/db/client';
import { createPostgresTestDatabase, type PostgresTestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from './serve-process';

// Every request is in the execution table before its answer leaves: answered, refused (429 from the global limit
// or from a full executor, 422 for an invalid body or before running), abandoned by its client (running or still
// waiting), and when the database cannot take the row the client gets 503, never a 200 that left no trace.
// Postgres only: a trigger stands in for a database that refuses one row.

/** Code containing this cannot be recorded: the trigger below refuses its row. */
const UNRECORDABLE = '#unrecordable';

/**
 * A `fusebox serve` with `env` on a Postgres database of its own (given to `prepare` first), started before the
 * tests of the describe block and stopped after them; and how to post to it and read its execution rows.
 */
function useRecordingServer(
  env: Record<string, string>,
  prepare?: (database: PostgresTestDatabase) => Promise<void>,
) {
  let database: PostgresTestDatabase | undefined;
  let server: RunningServer | undefined;
  let reader: PrismaClient | undefined;
  beforeAll(async () => {
    database = await createPostgresTestDatabase();
    await prepare?.(database);
    server = await startServer({ ...database.env, FUSEBOX_EXECUTOR_ISOLATION: 'none', ...env });
    reader = database.reader();
  }, 120_000);
  afterAll(async () => {
    await reader?.$disconnect();
    await server?.stop();
    await database?.drop();
  });
  const post = (path: string, body: unknown, signal?: AbortSignal, headers: Record<string, string> = {}) =>
    fetch(`${server!.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });
  const rowsOf = (code: string) =>
    reader!.execution.findMany({
      where: { code },
      select: { status: true, message: true, stdout: true, acquiredAt: true },
    });
  const originsOf = (code: string) =>
    reader!.execution.findMany({
      where: { code },
      select: { status: true, requestId: true, toolInstance: true },
      orderBy: { requestedAt: 'asc' },
    });
  const rowsFrom = (requestId: string) =>
    reader!.execution.findMany({
      where: { requestId },
      select: { status: true, source: true, message: true, code: true },
    });
  const refusedCells = () =>
    reader!.execution.findMany({
      where: { source: 'sandbox_cell', status: 'Refused' },
      select: { message: true, code: true, language: true },
      orderBy: { requestedAt: 'asc' },
    });
  return { post, rowsOf, originsOf, rowsFrom, refusedCells };
}

/** The body limit of the recording server below. */
const MAX_BODY_BYTES = 1024 * 1024;

describe('execution recording', () => {
  const { post, rowsOf, originsOf, rowsFrom, refusedCells } = useRecordingServer(
    {
      FUSEBOX_MAX_CONCURRENCY: '1',
      FUSEBOX_LIMITER_TIMEOUT_S: '0.3',
      FUSEBOX_MAX_BODY_BYTES: String(MAX_BODY_BYTES),
    },
    async (database) => {
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
    },
  );
  const runCode = (code: string, signal?: AbortSignal) =>
    post('/run_code', { code, language: 'python' }, signal);

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

  it('records a body refused with 422, naming what was wrong, with the code it carried', async () => {
    const code = 'print("in an unknown language")';
    const answer = await post('/run_code', { code, language: 'cobol-9000' });
    expect(answer.status).toBe(422);
    const { detail } = (await answer.json()) as { detail: { loc: string[] }[] };
    expect(detail[0]?.loc).toEqual(['body', 'language']);
    expect(await rowsOf(code)).toEqual([
      expect.objectContaining({
        status: 'Refused',
        message: expect.stringMatching(/^422 body\.language: /) as unknown,
        acquiredAt: null,
      }),
    ]);
    // A body without code or language is recorded too, under what it lacked.
    const cells = ['x = 1', 'x +'];
    const jupyter = await post('/run_jupyter', { cells, total_timeout: 'soon' });
    expect(jupyter.status).toBe(422);
    expect(await rowsOf(cells.join('\n# %%\n'))).toEqual([
      expect.objectContaining({
        status: 'Refused',
        message: expect.stringMatching(/^422 body\.total_timeout: /) as unknown,
      }),
    ]);
  });

  it('records a body refused before it was read, too large (413) or not JSON (415), with its rollout', async () => {
    const tooLarge = await post(
      '/run_code',
      { code: `# ${'x'.repeat(MAX_BODY_BYTES)}`, language: 'python' },
      undefined,
      { 'x-fusebox-request-id': 'req-413' },
    );
    expect(tooLarge.status).toBe(413);
    const notJson = await post('/run_jupyter', 'print(1)', undefined, {
      'content-type': 'text/plain',
      'x-fusebox-request-id': 'req-415',
    });
    expect(notJson.status).toBe(415);
    expect(await rowsFrom('req-413')).toEqual([
      {
        status: 'Refused',
        source: 'run_code',
        message: `413 the request body is larger than ${MAX_BODY_BYTES} bytes (FUSEBOX_MAX_BODY_BYTES)`,
        code: '',
      },
    ]);
    expect(await rowsFrom('req-415')).toEqual([
      expect.objectContaining({
        status: 'Refused',
        source: 'run_jupyter',
        message: expect.stringMatching(/^415 /) as unknown,
      }),
    ]);
  });

  it('records a stateful session cell refused for its body: invalid (422), too large (413)', async () => {
    const cell = '/v1/sandbox/sessions/no-such-session/run';
    expect((await post(cell, { code: 'print(1)', timeout: 'soon' })).status).toBe(422);
    expect((await post(cell, { code: `# ${'x'.repeat(MAX_BODY_BYTES)}` })).status).toBe(413);
    expect(await refusedCells()).toEqual([
      {
        message: expect.stringMatching(/^422 body\.timeout: /) as unknown,
        code: 'print(1)',
        language: 'python',
      },
      {
        message: `413 the request body is larger than ${MAX_BODY_BYTES} bytes (FUSEBOX_MAX_BODY_BYTES)`,
        code: '',
        language: '(none)',
      },
    ]);
  });

  it('records the rollout request and tool instance its client names, and refuses a header that is no id', async () => {
    const code = 'print("from a rollout")';
    const origin = { 'x-fusebox-request-id': 'req-1', 'x-fusebox-tool-instance': 'inst-1' };
    expect((await post('/run_code', { code, language: 'python' }, undefined, origin)).status).toBe(200);
    // No header, or an empty one: no origin.
    expect(
      (await post('/run_code', { code, language: 'python' }, undefined, { 'x-fusebox-request-id': '' }))
        .status,
    ).toBe(200);
    const cells = ['print("a jupyter rollout")'];
    const jupyter = await post('/run_jupyter', { cells }, undefined, { 'x-fusebox-request-id': 'req-2' });
    expect(jupyter.status).toBe(200);
    const spaced = await post('/run_code', { code, language: 'python' }, undefined, {
      'x-fusebox-request-id': 'a request id',
    });
    expect(spaced.status).toBe(422);
    const { detail } = (await spaced.json()) as { detail: { loc: string[]; msg: string }[] };
    expect(detail).toEqual([
      expect.objectContaining({
        loc: ['header', 'x-fusebox-request-id'],
        msg: expect.stringMatching(/id/) as unknown,
      }),
    ]);
    // A bad body refused with a good origin: the row keeps the origin.
    const refused = await post('/run_code', { code, language: 'cobol-9000' }, undefined, origin);
    expect(refused.status).toBe(422);
    expect(await originsOf(code)).toEqual([
      { status: 'Success', requestId: 'req-1', toolInstance: 'inst-1' },
      { status: 'Success', requestId: null, toolInstance: null },
      { status: 'Refused', requestId: null, toolInstance: null },
      { status: 'Refused', requestId: 'req-1', toolInstance: 'inst-1' },
    ]);
    expect(await originsOf(cells[0]!)).toEqual([
      { status: 'Success', requestId: 'req-2', toolInstance: null },
    ]);
  });

  it('still answers 422 to an invalid body whose row the database refuses', async () => {
    const answer = await post('/run_code', { code: `print(1) ${UNRECORDABLE}`, language: 'cobol-9000' });
    expect(answer.status).toBe(422);
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

describe('execution recording when the executor is full', () => {
  // One execution at a time in the executor, under a global limit that lets more through: what a machine whose
  // memory and process budget is used up looks like to clients. Each waits 1.5 s at most for room to run.
  const { post, rowsOf } = useRecordingServer({
    FUSEBOX_MAX_CONCURRENCY: '8',
    FUSEBOX_EXECUTOR_CONCURRENCY: '1',
    FUSEBOX_EXECUTOR_QUEUE_TIMEOUT_S: '1.5',
  });
  /**
   * Starts an execution that sleeps `seconds`, and resolves once it holds the executor's one slot (it says so in
   * a file), with its answer to come (wrapped: a promise resolved with a promise would wait for it).
   */
  const busyFor = async (seconds: number): Promise<{ answer: Promise<Response> }> => {
    const marker = join(tmpdir(), `fusebox-busy-${process.pid}-${randomUUID()}`);
    const code = `open(${JSON.stringify(marker)}, "w").close()\nimport time\ntime.sleep(${seconds})`;
    const answer = post('/run_code', { code, language: 'python' });
    await expect.poll(() => existsSync(marker), { timeout: 30_000 }).toBe(true);
    rmSync(marker);
    return { answer };
  };

  it('answers a run that found no room in time 429 with Retry-After, saying how long it waited, and records it', async () => {
    const { answer: busy } = await busyFor(3);
    const code = 'print("waited too long")';
    const refused = await post('/run_code', { code, language: 'python' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    const { detail } = (await refused.json()) as { detail: string };
    expect(detail).toMatch(/waited \d+\.\d s for room to run \(all 1 slots are busy\); nothing ran/);
    expect(await rowsOf(code)).toEqual([
      expect.objectContaining({ status: 'Refused', message: `429 ${detail}`, acquiredAt: null }),
    ]);
    expect((await busy).status).toBe(200);
  });

  it('records a run whose client gave up while it waited for room, before it ever ran', async () => {
    const { answer: busy } = await busyFor(2);
    const code = 'print("nobody waits for me")';
    const controller = new AbortController();
    const request = post('/run_code', { code, language: 'python' }, controller.signal).catch(
      (error: unknown) => error,
    );
    await new Promise((resolve) => setTimeout(resolve, 400));
    controller.abort();
    await request;
    await expect
      .poll(() => rowsOf(code), { timeout: 10_000 })
      .toEqual([expect.objectContaining({ status: 'Abandoned', acquiredAt: null })]);
    expect((await busy).status).toBe(200);
  });

  it('records a run refused before running for a path outside its working directory', async () => {
    const code = 'print("never runs") # unsafe path';
    const answer = await post('/run_code', { code, language: 'python', files: { '../escape.txt': 'aGk=' } });
    const rows = await rowsOf(code);
    expect(rows).toHaveLength(1);
    // Whichever way it is answered (422, or SandboxError in a 200), the table holds it, and nothing ran.
    if (answer.status === 200) expect(rows[0]!.status).toBe('SandboxError');
    else
      expect(rows[0]).toMatchObject({
        status: 'Refused',
        message: expect.stringMatching(/^422 /) as unknown,
      });
  });
});
