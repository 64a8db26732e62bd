import { once } from 'node:events';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, type HostileServer, healthProblem, startHostileServer } from './hostile-server';

// Issue 15, item 7: hostile input to the API is answered 4xx, clearly, never 500, never with a stack or a database
// error, and never stalls the server. Every probe also sends a valid input of about the same size just under the
// limit, which must be accepted, so a probe cannot pass by failing to run.

const MAX_BODY_BYTES = 2 * 1024 * 1024;
const MAX_JUPYTER_CELLS = 40;
const MAX_FILES = 1000;
const MAX_DEPTH = 64;
const MAX_VALUES = 10_000;

/** Nothing of the server's insides: stack frames, Prisma, SQL or Postgres messages. */
function expectNoLeak(answer: Answer): void {
  expect(answer.text).not.toMatch(/\n\s+at |\bat [\w.<>]+ \(|node:internal|\.ts:\d+/);
  expect(answer.text).not.toMatch(
    /prisma|postgres|SELECT |INSERT |invalid input syntax|out of range for type/i,
  );
  expect(answer.text).not.toMatch(/"stack"/);
}

function json(answer: Answer): Record<string, unknown> {
  expect(answer.contentType).toMatch(/^application\/json/);
  return JSON.parse(answer.text) as Record<string, unknown>;
}

/** A pydantic-shaped 422 with one entry; returns it. */
function detailOf(answer: Answer): Record<string, unknown> {
  expect(answer.status, answer.text.slice(0, 500)).toBe(422);
  expectNoLeak(answer);
  const detail = json(answer).detail as Record<string, unknown>[];
  expect(detail).toHaveLength(1);
  return detail[0]!;
}

/** A 422 refusing `field` for holding `received` entries where the server's `setting` allows `max`. */
function expectTooLong(answer: Answer, field: string, max: number, received: number, setting: string): void {
  const refused = detailOf(answer);
  expect(refused).toMatchObject({
    type: 'too_long',
    loc: ['body', field],
    ctx: { max_length: max, actual_length: received },
  });
  expect(refused.msg).toContain(setting);
}

/** A 422 refusing a body, unparsed, for holding more than FUSEBOX_MAX_JSON_VALUES values. */
function expectTooManyValues(answer: Answer): void {
  const refused = detailOf(answer);
  expect(refused).toMatchObject({ type: 'json_invalid' });
  expect((refused.ctx as { error: string }).error).toMatch(
    new RegExp(`^the JSON holds more than ${MAX_VALUES} values and keys \\(FUSEBOX_MAX_JSON_VALUES\\)`),
  );
}

function nested(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

/** How long a raw exchange waits for its answers once all is sent. */
const EXCHANGE_DEADLINE_MS = 15_000;

/** What a raw HTTP/1.1 exchange read back: each answer's head and body, and the socket's error if any. */
interface RawExchange {
  answers: string[];
  /** Whether the server closed the connection before the exchange ended it. */
  closedByServer: boolean;
  error?: string;
}

/** How {@link rawExchange} sends its POST. */
interface RawPost {
  framing: 'content-length' | 'chunked';
  /** The body's parts, in bytes, each sent after a pause. */
  parts: number[];
  /** The content-length sent; by default the parts' sum. */
  declaredBytes?: number;
  /** Whether a GET of `/v1/ping` follows on the same connection. */
  thenGet: boolean;
}

/**
 * Sends one POST of `path` without reading anything until it is all sent: the way a client that writes its whole
 * body before reading the answer behaves, on a server that answers early. Reads until the answers expected
 * have come or the server closes.
 */
async function rawExchange(url: string, path: string, post: RawPost): Promise<RawExchange> {
  const { framing, parts, thenGet } = post;
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.pause();
  let error: string | undefined;
  socket.on('error', (failure: NodeJS.ErrnoException) => (error = failure.code ?? failure.message));
  // Listened for from the start: a server that cuts the connection off does it while the body is still sent.
  let closedByServer = false;
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  void closed.then(() => (closedByServer = true));
  await once(socket, 'connect');
  const declared = post.declaredBytes ?? parts.reduce((sum, part) => sum + part, 0);
  socket.write(
    `POST ${path} HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\n` +
      (framing === 'chunked' ? 'transfer-encoding: chunked' : `content-length: ${declared}`) +
      '\r\n\r\n',
  );
  for (const [index, size] of parts.entries()) {
    await sleep(300);
    const bytes = Buffer.alloc(size, 0x20);
    if (index === 0) bytes.write('{"code":"');
    if (framing === 'content-length') socket.write(bytes);
    else socket.write(`${size.toString(16)}\r\n${bytes.toString()}\r\n`);
  }
  if (framing === 'chunked') socket.write('0\r\n\r\n');
  await sleep(300);
  if (thenGet) socket.write(`GET /v1/ping HTTP/1.1\r\nhost: ${hostname}\r\n\r\n`);
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  socket.resume();
  const answered = () => received.match(/HTTP\/1\.1 \d{3} /g)?.length ?? 0;
  const deadline = Date.now() + EXCHANGE_DEADLINE_MS;
  while (!closedByServer && answered() < (thenGet ? 2 : 1) && Date.now() < deadline) {
    await Promise.race([closed, sleep(50)]);
  }
  // The rest of the last answer, or the server's close.
  await Promise.race([closed, sleep(300)]);
  const exchange = {
    answers: received.split(/(?=HTTP\/1\.1 \d{3} )/),
    closedByServer,
    ...(error ? { error } : {}),
  };
  socket.destroy();
  return exchange;
}

describe('hostile input to the API', () => {
  let h: HostileServer;

  /** Runs a probe while pinging the server, and fails unless it stayed healthy. */
  async function watched<T>(probe: () => Promise<T>): Promise<T> {
    const { result, health } = await h.watch(probe);
    expect(healthProblem(health)).toBeUndefined();
    return result;
  }

  const trpcGet = (procedure: string, input: unknown) =>
    h.get(`/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`);

  beforeAll(async () => {
    h = await startHostileServer({
      FUSEBOX_MAX_BODY_BYTES: String(MAX_BODY_BYTES),
      FUSEBOX_MAX_JUPYTER_CELLS: String(MAX_JUPYTER_CELLS),
    });
  });
  afterAll(async () => {
    await h?.stop();
  });

  describe('nesting depth', () => {
    it('/run_code refuses 100,000 nested arrays with 422 naming the limit, and accepts the limit itself', async () => {
      await watched(async () => {
        const deep = detailOf(await h.post('/run_code', nested(100_000)));
        expect(deep).toMatchObject({ type: 'json_invalid', loc: ['body', MAX_DEPTH] });
        expect((deep.ctx as { error: string }).error).toBe(
          `the JSON nests deeper than ${MAX_DEPTH} levels (FUSEBOX_MAX_JSON_DEPTH) at position ${MAX_DEPTH}`,
        );
        // Deep inside a field, where describing the bad field used to overflow the stack.
        const field = `{"code": ${nested(100_000)}, "language": "python"}`;
        expect(detailOf(await h.post('/run_code', field)).type).toBe('json_invalid');

        // The body's object is level 1: an unknown field nested 63 deep is exactly at the limit.
        const atLimit = `{"code": "print(1)", "language": "python", "extra": ${nested(MAX_DEPTH - 1)}}`;
        const accepted = await h.post('/run_code', atLimit);
        expect(accepted.status, accepted.text).toBe(200);
        expect(json(accepted)).toMatchObject({ status: 'Success', run_result: { stdout: '1\n' } });
      });
    });

    it('/start_instance refuses deep nesting with 400 in its own error shape', async () => {
      await watched(async () => {
        const deep = await h.post('/start_instance', `{"instance_hash": ${nested(100_000)}}`);
        expect(deep.status).toBe(400);
        expectNoLeak(deep);
        expect(json(deep)).toMatchObject({ code: 'FUSEBOX_SESSION_INVALID_REQUEST' });
        expect(json(deep).detail).toContain('FUSEBOX_MAX_JSON_DEPTH');
        // Just under the limit the body is read, and refused for what it says: no such task.
        const control = await h.post(
          '/start_instance',
          `{"instance_hash": "1", "x": ${nested(MAX_DEPTH - 1)}}`,
        );
        expect(control.status, control.text).toBe(404);
      });
    });

    it('tRPC refuses a deeply nested input with 400 before parsing it', async () => {
      await watched(async () => {
        const deep = await h.get(`/trpc/executions.list?input=${encodeURIComponent(nested(2000))}`);
        expect(deep.status).toBe(400);
        expectNoLeak(deep);
        expect(json(deep)).toMatchObject({ error: { data: { code: 'BAD_REQUEST', httpStatus: 400 } } });
        expect(deep.text).toContain('FUSEBOX_MAX_JSON_DEPTH');
        const control = await trpcGet('executions.list', { limit: 1 });
        expect(control.status, control.text).toBe(200);
      });
    });
  });

  describe('array and object sizes', () => {
    // Short names and contents, so that 100,000 of them stay under the body limit.
    const manyFiles = (count: number) =>
      Object.fromEntries(Array.from({ length: count }, (_, i) => [`in/${i}`, 'aA==']));

    it('/run_code refuses 3,000 files with 422 naming the field, the limit and the count, and 100,000 unparsed', async () => {
      // Bodies are built before the watch: building them would stall this process's pinger, not the server.
      const body = (count: number) =>
        JSON.stringify({ code: 'print(1)', language: 'python', files: manyFiles(count) });
      const hostile = body(100_000);
      await watched(async () => {
        expectTooLong(await h.post('/run_code', body(3000)), 'files', MAX_FILES, 3000, 'FUSEBOX_MAX_FILES');
        expectTooManyValues(await h.post('/run_code', hostile));

        const accepted = await h.post('/run_code', {
          code: 'import os\nprint(len(os.listdir("in")))',
          language: 'python',
          files: manyFiles(MAX_FILES),
        });
        expect(accepted.status, accepted.text).toBe(200);
        expect(json(accepted)).toMatchObject({ status: 'Success', run_result: { stdout: `${MAX_FILES}\n` } });
      });
    });

    it('/run_code refuses too many fetch_files, and fetches the limit', async () => {
      const paths = (count: number) => Array.from({ length: count }, (_, i) => `out/f${i}.txt`);
      const body = (count: number) =>
        JSON.stringify({ code: 'print(1)', language: 'python', fetch_files: paths(count) });
      const hostile = body(100_000);
      await watched(async () => {
        const refused = detailOf(await h.post('/run_code', body(3000)));
        expect(refused).toMatchObject({ type: 'too_long', loc: ['body', 'fetch_files'] });
        expect(refused.msg).toBe(
          `List should have at most ${MAX_FILES} items after validation, not 3000 (the server's FUSEBOX_MAX_FILES)`,
        );
        expectTooManyValues(await h.post('/run_code', hostile));

        const accepted = await h.post('/run_code', {
          code: 'import os\nos.mkdir("out")\nfor i in range(3): open(f"out/f{i}.txt", "w").write("x")',
          language: 'python',
          fetch_files: paths(MAX_FILES),
        });
        expect(accepted.status, accepted.text).toBe(200);
        expect(Object.keys(json(accepted).files as object)).toEqual([
          'out/f0.txt',
          'out/f1.txt',
          'out/f2.txt',
        ]);
      });
    });

    it('/run_jupyter refuses too many cells, and runs as many as the limit', async () => {
      const cells = (count: number) => Array.from({ length: count }, (_, i) => `x = ${i}`);
      const hostile = JSON.stringify({ cells: cells(100_000) });
      await watched(async () => {
        const setting = 'FUSEBOX_MAX_JUPYTER_CELLS';
        const over = JSON.stringify({ cells: cells(3000) });
        expectTooLong(await h.post('/run_jupyter', over), 'cells', MAX_JUPYTER_CELLS, 3000, setting);
        expectTooManyValues(await h.post('/run_jupyter', hostile));
        expect(detailOf(await h.post('/run_jupyter', { cells: cells(MAX_JUPYTER_CELLS + 1) })).type).toBe(
          'too_long',
        );

        const accepted = await h.post('/run_jupyter', { cells: [...cells(MAX_JUPYTER_CELLS - 1), 'x'] });
        expect(accepted.status, accepted.text).toBe(200);
        const body = json(accepted) as { status: string; cells: { display: unknown[] }[] };
        expect(body.status).toBe('Success');
        expect(body.cells).toHaveLength(MAX_JUPYTER_CELLS);
        expect(body.cells.at(-1)?.display).toEqual([{ 'text/plain': String(MAX_JUPYTER_CELLS - 2) }]);
      });
    });

    it('/run_code refuses files deeper than 32 directories or needing over 2000, and writes what is allowed', async () => {
      // A thousand files 200 directories deep took over a minute of directory making before the code ran; a
      // thousand distinct chains 32 deep, 12 s.
      const deep = (depth: number, chains: number) =>
        Object.fromEntries(
          Array.from({ length: MAX_FILES }, (_, i) => [
            `a${i % chains}/${'d/'.repeat(depth - 1)}f${i}`,
            'aA==',
          ]),
        );
      const run = (files: Record<string, string>) =>
        h.post('/run_code', {
          code: `import os\nprint(len(os.listdir("a0/${'d/'.repeat(31)}")))`,
          language: 'python',
          files,
        });
      await watched(async () => {
        for (const [files, reason] of [
          [deep(200, 1), /^refused file path "a0\/(d\/){199}f0": it is more than 32 directories deep$/],
          [
            deep(32, MAX_FILES),
            /^refused file path "a62\/(d\/){31}f62": the files need more than 2000 directories$/,
          ],
        ] as const) {
          const refused = await run(files);
          // As any unsafe path: nothing ran, and SandboxFusion's shape says why.
          expectNoLeak(refused);
          expect(json(refused)).toMatchObject({ status: 'SandboxError', run_result: null });
          expect(json(refused).message).toMatch(reason);
        }
        const accepted = await run(deep(32, 1));
        expect(json(accepted)).toMatchObject({ status: 'Success', run_result: { stdout: `${MAX_FILES}\n` } });
      });
    });

    it('a session refuses too many files', async () => {
      await watched(async () => {
        const refused = detailOf(
          await h.post('/v1/sandbox/sessions', {
            files: Object.fromEntries([...Array(MAX_FILES + 1).keys()].map((i) => [`f${i}`, 'aGkK'])),
          }),
        );
        expect(refused).toMatchObject({ type: 'too_long', loc: ['body', 'files'] });
      });
    });
  });

  describe('value counts', () => {
    // 600,000 empty objects fit in the body limit (300,000 in the 1 MiB of /retrieve and tRPC); JSON.parse of them
    // alone takes 170 ms (72 ms), and grows with the values allowed: 15 MB of them take 3.7 s.
    const many = (count: number) => `[${'{},'.repeat(count - 1)}{}]`;

    it('/run_code refuses a body of 600,000 values with 422 naming the limit, and accepts the limit itself', async () => {
      await watched(async () => {
        const body = (count: number) => `{"code": "print(1)", "language": "python", "extra": ${many(count)}}`;
        expectTooManyValues(await h.post('/run_code', body(600_000)));
        // The object, its 3 keys, 2 strings and the array are 7 values: the rest are the array's.
        const accepted = await h.post('/run_code', body(MAX_VALUES - 7));
        expect(json(accepted)).toMatchObject({ status: 'Success', run_result: { stdout: '1\n' } });
        expect(detailOf(await h.post('/run_code', body(MAX_VALUES - 6))).type).toBe('json_invalid');
      });
    });

    it('/start_instance, /retrieve and tRPC refuse it in their own error shapes', async () => {
      await watched(async () => {
        const session = await h.post('/start_instance', `{"instance_hash": "1", "x": ${many(600_000)}}`);
        expect(session.status).toBe(400);
        expect(json(session)).toMatchObject({ code: 'FUSEBOX_SESSION_INVALID_REQUEST' });
        expect(json(session).detail).toContain('FUSEBOX_MAX_JSON_VALUES');
        const retrieve = await h.post('/retrieve', `{"queries": ["a"], "x": ${many(300_000)}}`);
        expect(retrieve.status).toBe(422);
        expect(json(retrieve)).toMatchObject({ code: 'FUSEBOX_RETRIEVE_INVALID' });
        expect(json(retrieve).detail).toContain('FUSEBOX_MAX_JSON_VALUES');
        const trpc = await h.post('/trpc/executions.list', many(300_000));
        expect(trpc.status).toBe(400);
        expect(trpc.text).toContain('FUSEBOX_MAX_JSON_VALUES');
        for (const answer of [session, retrieve, trpc]) expectNoLeak(answer);
        // Controls: under the limit, each reads the body and answers for what it says.
        const small = many(100);
        expect((await h.post('/start_instance', `{"instance_hash": "1", "x": ${small}}`)).status).toBe(404);
        const named = await h.post('/retrieve', `{"queries": ["a"], "x": ${small}}`);
        expect(json(named).detail).not.toContain('FUSEBOX_MAX_JSON_VALUES');
        expect((await h.post('/trpc/executions.list', small)).status).toBe(405);
      });
    });
  });

  describe('string sizes', () => {
    it('/run_code answers 413 naming the body limit, and runs code just under it', async () => {
      await watched(async () => {
        const huge = await h.post('/run_code', {
          code: `# ${'x'.repeat(MAX_BODY_BYTES)}`,
          language: 'python',
        });
        expect(huge.status).toBe(413);
        expectNoLeak(huge);
        expect(json(huge).detail).toBe(
          `the request body is larger than ${MAX_BODY_BYTES} bytes (FUSEBOX_MAX_BODY_BYTES)`,
        );

        const code = `# ${'x'.repeat(MAX_BODY_BYTES - 1024)}\nprint("read")`;
        const accepted = await h.post('/run_code', { code, language: 'python' });
        expect(accepted.status, accepted.text.slice(0, 300)).toBe(200);
        expect(json(accepted)).toMatchObject({ status: 'Success', run_result: { stdout: 'read\n' } });
      });
    });

    it('a client that sends all of a too-large body before reading gets the 413, and can go on', async () => {
      for (const path of ['/run_code', '/process_action']) {
        for (const framing of ['content-length', 'chunked'] as const) {
          const exchange = await rawExchange(h.url, path, {
            framing,
            parts: [MAX_BODY_BYTES + 1000, MAX_BODY_BYTES],
            thenGet: true,
          });
          expect(exchange.answers[0], `${path} ${framing}`).toMatch(/^HTTP\/1\.1 413 /);
          expect(exchange.answers[0]).toContain('FUSEBOX_MAX_BODY_BYTES');
          expect(exchange.answers[0]).not.toMatch(/^connection: close/im);
          // The same connection then serves the next request.
          expect(exchange.answers[1], `${path} ${framing}`).toMatch(/^HTTP\/1\.1 200 /);
          expect(exchange.closedByServer).toBe(false);
          expect(exchange.error).toBeUndefined();
        }
      }
    });

    it('a body left unread by its answer (413, 404) is cut off with its connection past four times the limit', async () => {
      // Read and dropped up to 4x FUSEBOX_MAX_BODY_BYTES after the answer; the next request never gets one.
      for (const path of ['/run_code', '/no-such-route']) {
        const exchange = await rawExchange(h.url, path, {
          framing: 'chunked',
          parts: [MAX_BODY_BYTES + 1000, 4 * MAX_BODY_BYTES + 1000],
          thenGet: true,
        });
        expect(exchange.closedByServer, path).toBe(true);
        expect(exchange.answers.filter((answer) => answer.startsWith('HTTP/1.1 200 '))).toEqual([]);
      }
    });

    it('a body declared far over the limit is answered 413 and its connection closed, unread', async () => {
      const exchange = await rawExchange(h.url, '/run_code', {
        framing: 'content-length',
        parts: [],
        declaredBytes: 4 * MAX_BODY_BYTES + 1,
        thenGet: false,
      });
      expect(exchange.answers[0]).toMatch(/^HTTP\/1\.1 413 /);
      expect(exchange.answers[0]).toMatch(/^connection: close/im);
    });

    it('/process_action answers 413 in its own error shape', async () => {
      await watched(async () => {
        const huge = await h.post('/process_action', { sid: '1', content: 'x'.repeat(MAX_BODY_BYTES) });
        expect(huge.status).toBe(413);
        expectNoLeak(huge);
        expect(json(huge)).toMatchObject({ code: 'FUSEBOX_SESSION_BODY_TOO_LARGE' });
        expect(json(huge).detail).toContain('FUSEBOX_MAX_BODY_BYTES');
        // Just under: read, and refused for what it says (no such session).
        const control = await h.post('/process_action', {
          sid: '1',
          content: 'x'.repeat(MAX_BODY_BYTES - 1024),
        });
        expect(control.status, control.text.slice(0, 300)).toBe(404);
      });
    });
  });

  describe('timeouts', () => {
    it('/run_code refuses a run_timeout or compile_timeout over FUSEBOX_MAX_TIMEOUT_S, and accepts the maximum', async () => {
      await watched(async () => {
        for (const [field, value] of [
          ['run_timeout', 1e300],
          ['run_timeout', 3601],
          ['compile_timeout', 1e300],
        ] as const) {
          const refused = detailOf(
            await h.post('/run_code', { code: 'print(1)', language: 'python', [field]: value }),
          );
          expect(refused).toMatchObject({
            type: 'less_than_equal',
            loc: ['body', field],
            input: value,
            ctx: { le: 3600 },
          });
          expect(refused.msg).toBe(
            "Input should be less than or equal to 3600 (the server's FUSEBOX_MAX_TIMEOUT_S)",
          );
        }
        const accepted = await h.post('/run_code', {
          code: 'print(1)',
          language: 'python',
          run_timeout: 3600,
          compile_timeout: 3600,
        });
        expect(json(accepted)).toMatchObject({ status: 'Success', run_result: { stdout: '1\n' } });
      });
    });

    it('/run_jupyter refuses a total_timeout or cell_timeout over the maximum', async () => {
      await watched(async () => {
        expect(detailOf(await h.post('/run_jupyter', { cells: ['1'], total_timeout: 1e9 })).loc).toEqual([
          'body',
          'total_timeout',
        ]);
        expect(detailOf(await h.post('/run_jupyter', { cells: ['1'], cell_timeout: 1e300 })).loc).toEqual([
          'body',
          'cell_timeout',
        ]);
        const accepted = await h.post('/run_jupyter', {
          cells: ['1 + 1'],
          total_timeout: 3600,
          cell_timeout: 3600,
        });
        expect(json(accepted)).toMatchObject({
          status: 'Success',
          cells: [{ display: [{ 'text/plain': '2' }] }],
        });
      });
    });

    it('a session refuses an idle_timeout that would overflow the timer, and lives with the maximum', async () => {
      await watched(async () => {
        const refused = detailOf(await h.post('/v1/sandbox/sessions', { idle_timeout: 3e6 }));
        expect(refused).toMatchObject({
          type: 'less_than_equal',
          loc: ['body', 'idle_timeout'],
          input: 3e6,
          ctx: { le: 86_400 },
        });
        expect(refused.msg).toContain('FUSEBOX_MAX_SESSION_IDLE_TIMEOUT_S');
        expect(detailOf(await h.post('/v1/sandbox/sessions', { cell_timeout: 1e300 })).loc).toEqual([
          'body',
          'cell_timeout',
        ]);

        const created = await h.post('/v1/sandbox/sessions', { idle_timeout: 86_400 });
        expect(created.status, created.text).toBe(201);
        const id = json(created).session_id as string;
        try {
          expect(
            detailOf(await h.post(`/v1/sandbox/sessions/${id}/run`, { code: '1', timeout: 1e300 })).loc,
          ).toEqual(['body', 'timeout']);
          // Still alive: the timer did not fire at once, as one of 3e6 s would have.
          const cell = await h.post(`/v1/sandbox/sessions/${id}/run`, { code: '6 * 7' });
          expect(json(cell)).toMatchObject({ status: 'ok', alive: true, display: [{ 'text/plain': '42' }] });
        } finally {
          await fetch(`${h.url}/v1/sandbox/sessions/${id}`, { method: 'DELETE' });
        }
      });
    });
  });

  describe('memory limits', () => {
    it('refuses a memory_limit_MB past FUSEBOX_MAX_MEMORY_LIMIT_MB on every route, and runs with the maximum', async () => {
      await watched(async () => {
        // 2^53 - 1 MB is a valid JSON integer whose bytes overflow the kernel's rlimit.
        const huge = Number.MAX_SAFE_INTEGER;
        for (const [path, body] of [
          ['/run_code', { code: 'print(1)', language: 'python', memory_limit_MB: huge }],
          ['/run_jupyter', { cells: ['1'], memory_limit_MB: huge }],
          ['/v1/sandbox/sessions', { memory_limit_MB: huge }],
        ] as const) {
          const refused = detailOf(await h.post(path, body));
          expect(refused).toMatchObject({
            type: 'less_than_equal',
            loc: ['body', 'memory_limit_MB'],
            ctx: { le: 1024 * 1024 },
          });
          expect(refused.msg).toContain('FUSEBOX_MAX_MEMORY_LIMIT_MB');
        }
        const accepted = await h.post('/run_code', {
          code: 'print(1)',
          language: 'python',
          memory_limit_MB: 1024 * 1024,
        });
        expect(json(accepted)).toMatchObject({ status: 'Success', run_result: { stdout: '1\n' } });
      });
    });
  });

  describe('tRPC numeric inputs', () => {
    const hostile: [procedure: string, input: Record<string, unknown>][] = [
      ['executions.list', { from: 1e300 }],
      ['executions.list', { to: -1 }],
      ['executions.list', { from: '1e300' }],
      ['executions.list', { limit: 1.5 }],
      ['executions.list', { limit: 1e300 }],
      [
        'executions.list',
        { cursor: `99999999999999999999:${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}` },
      ],
      ['sessions.list', { createdAfter: -1e15 }],
      ['sessions.list', { createdBefore: 'NaN' }],
      ['overview.history', { bucketSeconds: 1e300 }],
      ['rollouts.samples', { runId: '00000000-0000-7000-8000-000000000000', step: 2 ** 31 }],
      ['rollouts.samples', { runId: '00000000-0000-7000-8000-000000000000', step: 0, cursor: -1 }],
      ['rollouts.fields', { runId: '00000000-0000-7000-8000-000000000000', step: 1e300 }],
      ['rollouts.search', { runId: '00000000-0000-7000-8000-000000000000', q: 'x', cursor: 2 ** 40 }],
    ];

    it('answers 400 naming the field, with no stack and no database error', async () => {
      await watched(async () => {
        for (const [procedure, input] of hostile) {
          const answer = await trpcGet(procedure, input);
          expect({ procedure, input, status: answer.status }).toEqual({ procedure, input, status: 400 });
          expectNoLeak(answer);
          const error = (json(answer) as { error: { message: string; data: Record<string, unknown> } }).error;
          expect(error.data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
          expect(error.data).not.toHaveProperty('stack');
          expect(error.message).toContain(`"${Object.keys(input).at(-1)!}"`);
        }
        // The same procedures with numbers in range answer.
        const now = Date.now();
        expect((await trpcGet('executions.list', { from: 0, to: now, limit: 200 })).status).toBe(200);
        expect((await trpcGet('sessions.list', { createdAfter: 0 })).status).toBe(200);
      });
    });
  });

  describe('content types', () => {
    const runCode = JSON.stringify({ code: 'print(1)', language: 'python' });
    const refusedTypes = [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ];

    it('/run_code, /start_instance and sessions answer 415 to a body that is not sent as JSON', async () => {
      await watched(async () => {
        for (const path of ['/run_code', '/run_jupyter', '/v1/sandbox/sessions', '/start_instance']) {
          for (const type of refusedTypes) {
            const answer = await h.post(path, runCode, { 'content-type': type });
            expect({ path, type, status: answer.status }).toEqual({ path, type, status: 415 });
            expectNoLeak(answer);
            expect(json(answer).detail).toBe(
              `expected a JSON body with content-type application/json, got content-type ${JSON.stringify(type)}`,
            );
          }
          // A Blob without a type sends no content-type at all: also a simple cross-site request.
          const bare = await fetch(`${h.url}${path}`, { method: 'POST', body: new Blob([runCode]) });
          expect({ path, status: bare.status }).toEqual({ path, status: 415 });
          await bare.text();
        }
        const accepted = await h.post('/run_code', runCode);
        expect(json(accepted)).toMatchObject({ status: 'Success' });
        const charset = await h.post('/run_code', runCode, {
          'content-type': 'application/json; charset=utf-8',
        });
        expect(json(charset)).toMatchObject({ status: 'Success' });
      });
    });

    it('tRPC answers 415 to a POST that is not JSON', async () => {
      await watched(async () => {
        for (const type of refusedTypes) {
          const answer = await h.post('/trpc/executions.list', '{}', { 'content-type': type });
          expect({ type, status: answer.status }).toEqual({ type, status: 415 });
          expect(json(answer)).toMatchObject({
            error: { data: { code: 'UNSUPPORTED_MEDIA_TYPE', httpStatus: 415 } },
          });
        }
        // As JSON the POST gets as far as tRPC, which refuses it for being a POST to a query.
        const json405 = await h.post('/trpc/executions.list', '{}');
        expect(json405.status).toBe(405);
      });
    });
  });
});
