// The agent session API's own cost: /process_action with a trivial `print(1)` action, and whole session
// lifecycles (start, one action, postprocess, compute_reward), against a real `fusebox serve` over loopback with
// autocannon at concurrency 1, 16 and 64. Each request is paired with what the server recorded for it, so the time
// spent outside the sandbox (HTTP, validation, session bookkeeping, database writes) is measured per request.
// Everything runs twice, on Postgres and on the embedded database (PGlite), with /run_code beside it, and the
// embedded database's start-up is timed.
// Usage: node --import tsx bench/api/run.ts [--seconds N]
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon, { type Request } from 'autocannon';
import { startServer } from '@fusebox/api/testing';
import type { PrismaClient } from '@fusebox/db/client';
import type { DatabaseMode } from '@fusebox/db/database';
import { openEmbeddedDatabase } from '@fusebox/db/embedded';
import {
  type TestDatabase,
  createEmbeddedTestDatabase,
  createPostgresTestDatabase,
} from '@fusebox/db/testing';
import { writeResults } from '../write-results';

const COMMAND = 'node --import tsx bench/api/run.ts';
const CONCURRENCIES = [1, 16, 64];
/** The builtin task `add-two-numbers`: stateful Python, four fail-to-pass tests. */
const TASK = '9000000000000000001';
const JSON_HEADERS = { 'content-type': 'application/json' };

interface Context {
  sid?: string;
  n?: number;
  sentAt?: number;
  startedAt?: number;
}

interface Row {
  c: number;
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
  sandboxP50: number;
  overheadP50: number;
  overheadP99: number;
  outsideShare: number;
  /** CPU time of the `fusebox serve` process (not its sandboxes) per request or lifecycle. */
  serverCpuMs: number;
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

/** User + system CPU time of a process so far, in ms, from /proc (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function post(url: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  if (response.status >= 300) throw new Error(`${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

/**
 * /process_action on `c` sessions opened beforehand, one per connection. Each action carries its number, so its
 * client-side latency can be joined with the action's stored duration (the sandbox's part, global permit
 * included): the overhead is the difference.
 */
async function actions(
  url: string,
  pid: number,
  prisma: PrismaClient,
  c: number,
  seconds: number,
): Promise<Row> {
  const sids = await Promise.all(
    Array.from(
      { length: c },
      async () => (await post(url, '/start_instance', { instance_hash: TASK })).sid as string,
    ),
  );
  // A first action per session opens its interpreter, so the run measures steady state.
  await Promise.all(sids.map((sid) => post(url, '/process_action', { sid, content: 'pass' })));
  // autocannon resets a connection's context after each pass over `requests`, so sessions are lent per request:
  // each connection has one request in flight, hence always a free session, and never two on one session.
  const free = [...sids];
  let nextAction = 0;
  const latencies = new Map<number, number>();
  const request: Request = {
    method: 'POST',
    path: '/process_action',
    headers: JSON_HEADERS,
    setupRequest: (req, raw) => {
      const context = raw as Context;
      context.sid = free.pop();
      context.n = nextAction++;
      context.sentAt = performance.now();
      return { ...req, body: JSON.stringify({ sid: context.sid, content: `print(1)  # ${context.n}` }) };
    },
    onResponse: (status, _body, raw) => {
      const context = raw as Context;
      free.push(context.sid!);
      if (status === 200) latencies.set(context.n!, performance.now() - context.sentAt!);
    },
  };
  const cpuBefore = cpuMs(pid);
  const result = await autocannon({ url, connections: c, duration: seconds, requests: [request] });
  const serverCpuMs = (cpuMs(pid) - cpuBefore) / result.requests.total;
  const stored = await prisma.action.findMany({
    where: { sessionId: { in: sids }, content: { startsWith: 'print(1)  # ' } },
    select: { content: true, durationMs: true },
  });
  const pairs = stored.flatMap(({ content, durationMs }) => {
    const latency = latencies.get(Number(content.slice('print(1)  # '.length)));
    return latency === undefined ? [] : [{ latency, sandbox: durationMs, overhead: latency - durationMs }];
  });
  await Promise.all(sids.map((sid) => post(url, '/postprocess', { sid })));
  return summarize(c, pairs, result.requests.total / seconds, serverCpuMs);
}

/** The floor /process_action stands on: a sandbox session cell (same executor, same global gate), no bookkeeping. */
interface Baseline {
  c: number;
  perSecond: number;
  p50: number;
  p99: number;
  serverCpuMs: number;
}

/**
 * `print(1)` through `/v1/sandbox/sessions/{id}/run` on `c` sandbox sessions: the same interpreter cell behind
 * the same global permit as an action, without a session to look up, code to extract or an action to store
 * before answering (its execution row is written after the answer). /process_action minus this is what the
 * agent session API adds, measured side by side on the same server.
 */
async function cells(url: string, pid: number, c: number, seconds: number): Promise<Baseline> {
  const ids = await Promise.all(
    Array.from({ length: c }, async () => (await post(url, '/v1/sandbox/sessions', {})).session_id as string),
  );
  await Promise.all(ids.map((id) => post(url, `/v1/sandbox/sessions/${id}/run`, { code: 'pass' })));
  const free = [...ids];
  const latencies: number[] = [];
  const request: Request = {
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify({ code: 'print(1)' }),
    setupRequest: (req, raw) => {
      const context = raw as Context;
      context.sid = free.pop();
      context.sentAt = performance.now();
      return { ...req, path: `/v1/sandbox/sessions/${context.sid}/run` };
    },
    onResponse: (status, _body, raw) => {
      const context = raw as Context;
      free.push(context.sid!);
      if (status === 200) latencies.push(performance.now() - context.sentAt!);
    },
  };
  const cpuBefore = cpuMs(pid);
  const result = await autocannon({ url, connections: c, duration: seconds, requests: [request] });
  const serverCpuMs = (cpuMs(pid) - cpuBefore) / result.requests.total;
  await Promise.all(ids.map((id) => fetch(`${url}/v1/sandbox/sessions/${id}`, { method: 'DELETE' })));
  return {
    c,
    perSecond: latencies.length / seconds,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    serverCpuMs,
  };
}

/** `print(1)` through SandboxFusion's /run_code: a fresh sandbox per run, and an execution row per run. */
async function runCodes(url: string, pid: number, c: number, seconds: number): Promise<Baseline> {
  const latencies: number[] = [];
  const request: Request = {
    method: 'POST',
    path: '/run_code',
    headers: JSON_HEADERS,
    body: JSON.stringify({ code: 'print(1)', language: 'python' }),
    setupRequest: (req, raw) => {
      (raw as Context).sentAt = performance.now();
      return req;
    },
    onResponse: (status, _body, raw) => {
      if (status === 200) latencies.push(performance.now() - (raw as Context).sentAt!);
    },
  };
  const cpuBefore = cpuMs(pid);
  const result = await autocannon({ url, connections: c, duration: seconds, requests: [request] });
  return {
    c,
    perSecond: latencies.length / seconds,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    serverCpuMs: (cpuMs(pid) - cpuBefore) / result.requests.total,
  };
}

/**
 * Whole lifecycles per connection, in a loop: /start_instance, one action, /postprocess, /compute_reward (four
 * tests). The sandbox's part is the action's stored duration plus the reward's tests, from the first test asking
 * for a permit to the last one finishing (they run at once).
 */
async function lifecycles(
  url: string,
  pid: number,
  prisma: PrismaClient,
  c: number,
  seconds: number,
): Promise<Row> {
  // Within one pass over `requests` a connection keeps its context: the sid from /start_instance.
  const finished: { sid: string; latency: number }[] = [];
  const sidBody = (req: Request, raw: object) => ({
    ...req,
    body: JSON.stringify({ sid: (raw as Context).sid }),
  });
  const requests: Request[] = [
    {
      method: 'POST',
      path: '/start_instance',
      headers: JSON_HEADERS,
      body: JSON.stringify({ instance_hash: TASK }),
      setupRequest: (req, raw) => {
        (raw as Context).startedAt = performance.now();
        return req;
      },
      onResponse: (_status, body, raw) => {
        (raw as Context).sid = (JSON.parse(body) as { sid: string }).sid;
      },
    },
    {
      method: 'POST',
      path: '/process_action',
      headers: JSON_HEADERS,
      setupRequest: (req, raw) => ({
        ...req,
        body: JSON.stringify({
          sid: (raw as Context).sid,
          content: '```python\ndef add(a, b):\n    return a + b\n```',
        }),
      }),
    },
    { method: 'POST', path: '/postprocess', headers: JSON_HEADERS, setupRequest: sidBody },
    {
      method: 'POST',
      path: '/compute_reward',
      headers: JSON_HEADERS,
      setupRequest: sidBody,
      onResponse: (status, _body, raw) => {
        const context = raw as Context;
        if (status === 200)
          finished.push({ sid: context.sid!, latency: performance.now() - context.startedAt! });
      },
    },
  ];
  const cpuBefore = cpuMs(pid);
  await autocannon({ url, connections: c, duration: seconds, requests, timeout: 60 });
  const serverCpuMs = (cpuMs(pid) - cpuBefore) / finished.length;
  const sids = finished.map(({ sid }) => sid);
  const [actionRows, rewardRuns] = await Promise.all([
    prisma.action.findMany({
      where: { sessionId: { in: sids } },
      select: { sessionId: true, durationMs: true },
    }),
    prisma.execution.groupBy({
      by: ['sessionId'],
      where: { sessionId: { in: sids }, source: 'session_reward' },
      _min: { requestedAt: true },
      _max: { finishedAt: true },
    }),
  ]);
  const actionMs = new Map(actionRows.map(({ sessionId, durationMs }) => [sessionId, durationMs]));
  const rewardMs = new Map(
    rewardRuns.map((run) => [
      run.sessionId,
      (run._max.finishedAt?.getTime() ?? 0) - (run._min.requestedAt?.getTime() ?? 0),
    ]),
  );
  const pairs = finished.map(({ sid, latency }) => {
    const sandbox = (actionMs.get(sid) ?? 0) + (rewardMs.get(sid) ?? 0);
    return { latency, sandbox, overhead: latency - sandbox };
  });
  return summarize(c, pairs, finished.length / seconds, serverCpuMs);
}

function summarize(
  c: number,
  pairs: { latency: number; sandbox: number; overhead: number }[],
  perSecond: number,
  serverCpuMs: number,
): Row {
  const latencies = pairs.map(({ latency }) => latency);
  const overheads = pairs.map(({ overhead }) => overhead);
  return {
    c,
    requests: pairs.length,
    perSecond,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    sandboxP50: quantile(
      pairs.map(({ sandbox }) => sandbox),
      0.5,
    ),
    overheadP50: quantile(overheads, 0.5),
    overheadP99: quantile(overheads, 0.99),
    outsideShare: sum(overheads) / sum(latencies),
    serverCpuMs,
  };
}

function baselineTable(actions: Row[], baselines: Baseline[]): string {
  const header = [
    'c',
    'cells/s',
    'p50 ms',
    'p99 ms',
    'server CPU ms',
    '/process_action p50 − cell p50 ms',
    '/process_action CPU − cell CPU ms',
  ];
  const cells = baselines.map((baseline, index) => {
    const action = actions[index]!;
    return [
      baseline.c,
      baseline.perSecond.toFixed(1),
      baseline.p50.toFixed(2),
      baseline.p99.toFixed(2),
      baseline.serverCpuMs.toFixed(2),
      (action.p50 - baseline.p50).toFixed(2),
      (action.serverCpuMs - baseline.serverCpuMs).toFixed(2),
    ];
  });
  return [header, header.map(() => '---'), ...cells].map((line) => `| ${line.join(' | ')} |`).join('\n');
}

function table(unit: string, rows: Row[]): string {
  const header = [
    'c',
    `${unit}s measured`,
    `${unit}s/s`,
    'p50 ms',
    'p99 ms',
    'sandbox p50 ms',
    'API overhead p50 ms',
    'API overhead p99 ms',
    'share outside the sandbox',
    'server CPU ms',
  ];
  const cells = rows.map((row) => [
    row.c,
    row.requests,
    row.perSecond.toFixed(1),
    row.p50.toFixed(2),
    row.p99.toFixed(2),
    row.sandboxP50.toFixed(2),
    row.overheadP50.toFixed(2),
    row.overheadP99.toFixed(2),
    `${(row.outsideShare * 100).toFixed(1)} %`,
    row.serverCpuMs.toFixed(2),
  ]);
  return [header, header.map(() => '---'), ...cells].map((line) => `| ${line.join(' | ')} |`).join('\n');
}

interface ModeResults {
  mode: DatabaseMode;
  actionRows: Row[];
  baselines: Baseline[];
  runCodeRows: Baseline[];
  lifecycleRows: Row[];
}

/** Every measure against one `fusebox serve` on a fresh database of `mode`. */
async function measure(mode: DatabaseMode, seconds: number, lifecycleSeconds: number): Promise<ModeResults> {
  const database: TestDatabase =
    mode === 'embedded' ? await createEmbeddedTestDatabase() : await createPostgresTestDatabase();
  // Enough interpreters for every session at c=64; the rest is fusebox serve's defaults (global limit 10).
  const server = await startServer(
    { ...database.env, FUSEBOX_SESSION_MAX: '256' },
    ['--no-dashboard'],
    180_000,
  );
  // Embedded, the server is the one process that can open the database: the stored durations are read through it.
  const prisma = database.reader();
  const results: ModeResults = { mode, actionRows: [], baselines: [], runCodeRows: [], lifecycleRows: [] };
  const pid = server.process.pid!;
  try {
    for (const c of CONCURRENCIES) {
      // Side by side, so both see the same machine.
      results.actionRows.push(await actions(server.url, pid, prisma, c, seconds));
      results.baselines.push(await cells(server.url, pid, c, seconds));
      results.runCodeRows.push(await runCodes(server.url, pid, c, seconds));
      process.stderr.write(`${mode}: actions, cells and /run_code at c=${c} done\n`);
    }
    for (const c of CONCURRENCIES) {
      results.lifecycleRows.push(await lifecycles(server.url, pid, prisma, c, lifecycleSeconds));
      process.stderr.write(`${mode}: lifecycles c=${c} done\n`);
    }
  } finally {
    await prisma.$disconnect();
    await server.stop();
    await database.drop();
  }
  return results;
}

/** Milliseconds from spawning `fusebox serve` on `dataDir` to its first answer to /v1/ping. */
async function serveToPing(dataDir: string): Promise<{ ms: number; stop: () => Promise<unknown> }> {
  const started = performance.now();
  const server = await startServer(
    { DATABASE_URL: '', FUSEBOX_DATA_DIR: dataDir },
    ['--no-dashboard'],
    300_000,
  );
  while ((await fetch(`${server.url}/v1/ping`).catch(() => null))?.status !== 200) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { ms: performance.now() - started, stop: () => server.stop() };
}

/**
 * The embedded database's start-up: `fusebox serve` on a new data directory (PGlite's initdb and the migrations)
 * and on the same directory again, each to its first /v1/ping; and PGlite alone opening the existing directory.
 */
async function bootTimes(): Promise<{ firstServeMs: number; secondServeMs: number; pgliteOpenMs: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'fusebox-bench-boot-'));
  try {
    const first = await serveToPing(join(dir, '.fusebox'));
    await first.stop();
    const second = await serveToPing(join(dir, '.fusebox'));
    await second.stop();
    const opening = performance.now();
    const db = await openEmbeddedDatabase(join(dir, '.fusebox'));
    const pgliteOpenMs = performance.now() - opening;
    await db.close();
    return { firstServeMs: first.ms, secondServeMs: second.ms, pgliteOpenMs };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function comparisonTable(postgres: ModeResults, embedded: ModeResults): string {
  const header = [
    'c',
    '/run_code/s Postgres',
    '/run_code/s embedded',
    '/run_code p50 ms Postgres',
    '/run_code p50 ms embedded',
    'lifecycles/s Postgres',
    'lifecycles/s embedded',
    'actions/s Postgres',
    'actions/s embedded',
  ];
  const cells = CONCURRENCIES.map((c, index) => [
    c,
    postgres.runCodeRows[index]!.perSecond.toFixed(1),
    embedded.runCodeRows[index]!.perSecond.toFixed(1),
    postgres.runCodeRows[index]!.p50.toFixed(2),
    embedded.runCodeRows[index]!.p50.toFixed(2),
    postgres.lifecycleRows[index]!.perSecond.toFixed(1),
    embedded.lifecycleRows[index]!.perSecond.toFixed(1),
    postgres.actionRows[index]!.perSecond.toFixed(1),
    embedded.actionRows[index]!.perSecond.toFixed(1),
  ]);
  return [header, header.map(() => '---'), ...cells].map((line) => `| ${line.join(' | ')} |`).join('\n');
}

function modeReport({ mode, actionRows, baselines, runCodeRows, lifecycleRows }: ModeResults): string {
  const name = mode === 'postgres' ? 'Postgres' : 'embedded (PGlite)';
  const overheadAtOne = actionRows[0]?.overheadP50 ?? Number.NaN;
  const runCodeTable = [
    ['c', 'runs/s', 'p50 ms', 'p99 ms', 'server CPU ms'],
    ['---', '---', '---', '---', '---'],
    ...runCodeRows.map((row) => [
      row.c,
      row.perSecond.toFixed(1),
      row.p50.toFixed(2),
      row.p99.toFixed(2),
      row.serverCpuMs.toFixed(2),
    ]),
  ]
    .map((line) => `| ${line.join(' | ')} |`)
    .join('\n');
  return [
    `## ${name}`,
    '',
    '### /process_action, `print(1)` in a stateful session (one session per connection)',
    '',
    table('action', actionRows),
    '',
    '### The same cell without the session API: `/v1/sandbox/sessions/{id}/run`, run right after each row above',
    '',
    baselineTable(actionRows, baselines),
    '',
    '### /run_code, `print(1)` in a fresh sandbox (run right after each row above)',
    '',
    runCodeTable,
    '',
    '### Session lifecycles: /start_instance, one action, /postprocess, /compute_reward (4 tests)',
    '',
    table('lifecycle', lifecycleRows),
    '',
    `Target: API overhead ≤ 2 ms p50 per action beyond the execution itself. Measured at c=1: ${overheadAtOne.toFixed(2)} ms ` +
      `(${overheadAtOne <= 2 ? 'met' : 'not met'}).`,
  ].join('\n');
}

async function main() {
  const { values } = parseArgs({ options: { seconds: { type: 'string', default: '10' } } });
  const seconds = Number(values.seconds);
  // A lifecycle at c=64 queues its reward behind 63 others' tests: it needs longer to reach a steady state.
  const lifecycleSeconds = seconds * 3;
  const loadBefore = loadavg();
  const boot = await bootTimes();
  process.stderr.write(`boot times measured\n`);
  const postgres = await measure('postgres', seconds, lifecycleSeconds);
  const embedded = await measure('embedded', seconds, lifecycleSeconds);
  const report = [
    '## Embedded (PGlite) and Postgres, side by side',
    '',
    comparisonTable(postgres, embedded),
    '',
    `Embedded start-up: \`fusebox serve\` on a new data directory answered /v1/ping after ` +
      `${(boot.firstServeMs / 1000).toFixed(1)} s (PGlite's initdb and the migrations); started again on it, after ` +
      `${(boot.secondServeMs / 1000).toFixed(1)} s (target: within 10 s, ` +
      `${boot.secondServeMs <= 10_000 ? 'met' : 'not met'}). PGlite alone opened the existing directory in ` +
      `${(boot.pgliteOpenMs / 1000).toFixed(1)} s.`,
    '',
    modeReport(postgres),
    '',
    modeReport(embedded),
  ].join('\n');
  console.log(report);
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  const load = (values: number[]) => values.map((value) => value.toFixed(1)).join(' ');
  await writeResults(
    new URL('RESULTS.md', import.meta.url),
    [
      '# Agent session API benchmark',
      '',
      `Command: \`${COMMAND}${seconds === 10 ? '' : ` --seconds ${seconds}`}\``,
      `Date: ${new Date().toISOString()}`,
      `Machine: ${machine}; load average ${load(loadBefore)} before, ${load(loadavg())} after`,
      '',
      `autocannon against a real \`fusebox serve\` on loopback (FUSEBOX_SESSION_MAX=256, every other setting its ` +
        `default: executor concurrency = cores, global limit 10), first on Postgres (the cluster-wide limiter), then ` +
        `on the embedded database (PGlite, the in-process limiter), ${seconds} s per action, cell and /run_code row ` +
        `and ${lifecycleSeconds} s per lifecycle row (lifecycles cut off at the end are not counted). Latency is ` +
        "measured per request by the client; the sandbox's part is what the server stored for that request (the " +
        "action's duration: global permit, executor queue and the cell; for a lifecycle also the reward's tests, " +
        'first permit asked to last test done). API overhead = latency − sandbox part: HTTP, validation, session ' +
        'bookkeeping and the database writes that happen before the answer. Share outside the sandbox = total ' +
        'overhead ÷ total latency. Server CPU = CPU time of the `fusebox serve` process itself (HTTP, sessions, ' +
        'Prisma, the executor and limiter clients; not the sandboxed processes) per request: unlike latency, it ' +
        'barely depends on what else runs on the machine. The embedded server runs PGlite in its own process, so ' +
        'its server CPU includes the database.',
      '',
      report,
      '',
    ].join('\n'),
  );
}

await main();
