// The main job end to end. (1) `fusebox demo` as a user runs it: a 512-episode scripted batch (3 assistant turns
// each, GSM8K with the code interpreter and coding tasks through the session API) against a real `fusebox serve`,
// measuring episodes/s, executions/s, the share of execution time spent waiting for a limiter permit, and the share
// of tool-call time that is API overhead (client time minus the server's recorded time). (2) A stateful workload,
// 512 episodes whose 3 code turns build on each other, with the code tool pointed at a SandboxFusion-style
// baseline (a fresh python3 per call, so every turn replays the earlier ones), at Fusebox's /run_code (likewise),
// and at Fusebox's stateful sessions (each turn runs only its own cell): latency per turn shows the speed-up.
// Usage: node --conditions=@fusebox/source --import tsx bench/e2e/run.ts [--episodes N]
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { cpus, loadavg, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startServer } from '@fusebox/api/testing';
import { runDemoCli } from '@fusebox/demo/testing';
import { createPostgresTestDatabase } from '@fusebox/db/testing';
import {
  type BaseTool,
  CodeInterpreterTool,
  runBatch,
  scriptedGenerate,
  type Trajectory,
} from '@fusebox/tools';
import { startSandboxFusionStandin } from './sandbox-fusion-standin';
import { SessionCodeTool } from './session-code-tool';
import { writeResults } from '../write-results';

const { values } = parseArgs({ options: { episodes: { type: 'string', default: '512' } } });
const EPISODES = Number(values.episodes);
if (!Number.isInteger(EPISODES) || EPISODES < 1) throw new TypeError('--episodes must be a positive integer');
const COMMAND = `node --conditions=@fusebox/source --import tsx bench/e2e/run.ts${EPISODES === 512 ? '' : ` --episodes ${EPISODES}`}`;
/** Fusebox's default global limit, and verl's default rate_limit for the baseline. */
const LIMIT = 10;
/** The demo's default: four episodes per permit. */
const CONCURRENCY = 4 * LIMIT;
const WARM_UP_EPISODES = 16;
/** Episodes run one at a time, so a turn's latency is its own work and overhead, with no queueing. */
const SEQUENTIAL_EPISODES = 24;

/** Three cells, each building on the state the previous one left. */
const CELLS = [
  'import random\nrandom.seed(7)\nrows = [random.random() for _ in range(100_000)]\nprint(len(rows))',
  'ordered = sorted(rows)\nprint(round(ordered[len(ordered) // 2], 6))',
  'buckets = [0] * 10\nfor value in ordered:\n    buckets[int(value * 10)] += 1\nprint(max(buckets) - min(buckets))',
];

interface SourceTotals {
  executions: number;
  waitMs: number;
  serverMs: number;
}

/** The server's recorded executions in a window, per source (run_code, session_action, sandbox_cell…). */
async function serverTotals(url: string, from: Date, to: Date): Promise<Map<string, SourceTotals>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ source: string; n: number; wait_ms: number; server_ms: number }>(
      `SELECT "source", count(*)::int AS "n",
         coalesce(sum(extract(epoch FROM "acquired_at" - "requested_at")) * 1000, 0)::float8 AS "wait_ms",
         coalesce(sum(extract(epoch FROM "finished_at" - "requested_at")) * 1000, 0)::float8 AS "server_ms"
       FROM "execution" WHERE "requested_at" BETWEEN $1 AND $2
         AND "acquired_at" IS NOT NULL AND "finished_at" IS NOT NULL
       GROUP BY "source"`,
      [from, to],
    );
    return new Map(
      rows.map((row) => [row.source, { executions: row.n, waitMs: row.wait_ms, serverMs: row.server_ms }]),
    );
  } finally {
    await client.end();
  }
}

function sum(totals: Map<string, SourceTotals>, sources: string[]): SourceTotals {
  const picked = sources.map((source) => totals.get(source) ?? { executions: 0, waitMs: 0, serverMs: 0 });
  return {
    executions: picked.reduce((total, item) => total + item.executions, 0),
    waitMs: picked.reduce((total, item) => total + item.waitMs, 0),
    serverMs: picked.reduce((total, item) => total + item.serverMs, 0),
  };
}

const percent = (part: number, whole: number) => (whole > 0 ? `${((100 * part) / whole).toFixed(1)}%` : '–');

interface DemoReport {
  seconds: number;
  all: { episodes: number; executions: number; executionMs: number; meanReward: number };
}

async function demoRow(url: string, databaseUrl: string, dir: string): Promise<string> {
  const demo = (episodes: number, name: string) =>
    runDemoCli(
      [
        ...['--api-url', url, '--episodes', String(episodes), '--steps', '1'],
        ...[
          '--concurrency',
          String(CONCURRENCY),
          '--out',
          join(dir, name),
          '--report',
          join(dir, `${name}.json`),
        ],
      ],
      { DATABASE_URL: databaseUrl },
    );
  const warm = await demo(WARM_UP_EPISODES, 'warm-up');
  if (warm.code !== 0) throw new Error(`the warm-up demo failed:\n${warm.stdout}\n${warm.stderr}`);
  const from = new Date();
  const run = await demo(EPISODES, 'demo');
  const to = new Date();
  if (run.code !== 0) throw new Error(`the demo failed:\n${run.stdout}\n${run.stderr}`);
  const report = JSON.parse(await readFile(join(dir, 'demo.json'), 'utf8')) as DemoReport;
  const totals = await serverTotals(databaseUrl, from, to);
  const all = sum(totals, [...totals.keys()]);
  // The client times only its tool calls; the server's rows for those are its actions and /run_code runs.
  const calls = sum(totals, ['run_code', 'session_action']);
  const { seconds } = report;
  return (
    `| ${report.all.episodes} | ${CONCURRENCY} | ${seconds.toFixed(1)} | ${(report.all.episodes / seconds).toFixed(1)} | ` +
    `${(report.all.executions / seconds).toFixed(1)} | ${(all.executions / seconds).toFixed(1)} | ` +
    `${report.all.meanReward.toFixed(2)} | ${percent(all.waitMs, all.serverMs)} | ` +
    `${percent(report.all.executionMs - calls.serverMs, report.all.executionMs)} |`
  );
}

interface Backend {
  name: string;
  tool: () => BaseTool;
  /** A stateless sandbox forgets everything between calls: each turn re-sends the cells before it. */
  replay: boolean;
  /** Fusebox records its executions: the limiter and overhead shares come from those rows. */
  sources: string[] | null;
}

/** The table row under load, and the p50 latency of each turn with one episode at a time. */
async function statefulRun(backend: Backend, databaseUrl: string): Promise<{ row: string; alone: number[] }> {
  const call = (code: string) =>
    `<tool_call>\n${JSON.stringify({ name: 'code_interpreter', arguments: { code } })}\n</tool_call>`;
  const turns = CELLS.map((_, turn) =>
    call(backend.replay ? CELLS.slice(0, turn + 1).join('\n') : (CELLS[turn] as string)),
  );
  const generate = scriptedGenerate([...turns, '#### done']);
  const tool = backend.tool();
  const prompt = { messages: [{ role: 'user' as const, content: 'Summarise the data, one step per turn.' }] };
  const options = {
    generate,
    tools: [tool],
    limits: { maxAssistantTurns: CELLS.length + 1 },
    concurrency: CONCURRENCY,
  };
  try {
    await runBatch(
      Array.from({ length: WARM_UP_EPISODES }, () => prompt),
      options,
    );
    const from = new Date();
    const started = performance.now();
    const trajectories: Trajectory[] = await runBatch(
      Array.from({ length: EPISODES }, () => prompt),
      options,
    );
    const seconds = (performance.now() - started) / 1000;
    const to = new Date();
    const calls = trajectories.flatMap((trajectory) => trajectory.toolCalls);
    const failed = calls.filter((item) => item.metrics.status !== 'success').length;
    const perTurn = turnMedians(calls).map((ms) => ms.toFixed(0));
    let shares = '– | –';
    if (backend.sources) {
      const totals = sum(await serverTotals(databaseUrl, from, to), backend.sources);
      const clientMs = calls.reduce((total, item) => total + item.durationMs, 0);
      shares = `${percent(totals.waitMs, totals.serverMs)} | ${percent(clientMs - totals.serverMs, clientMs)}`;
    }
    const row =
      `| ${backend.name} | ${EPISODES} | ${calls.length}${failed ? ` (${failed} failed)` : ''} | ${seconds.toFixed(1)} | ` +
      `${(EPISODES / seconds).toFixed(1)} | ${(calls.length / seconds).toFixed(1)} | ${perTurn.join(' | ')} | ${shares} |`;
    const alone = await runBatch(
      Array.from({ length: SEQUENTIAL_EPISODES }, () => prompt),
      { ...options, concurrency: 1 },
    );
    return { row, alone: turnMedians(alone.flatMap((trajectory) => trajectory.toolCalls)) };
  } finally {
    await tool.close();
  }
}

function turnMedians(calls: Trajectory['toolCalls']): number[] {
  return CELLS.map((_, turn) =>
    median(calls.filter((item) => item.turn === turn).map((item) => item.durationMs)),
  );
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

async function main() {
  // Other work on a shared machine moves these numbers a lot; the load when the run began is part of the result.
  const load = loadavg()[0]?.toFixed(1) ?? '?';
  const database = await createPostgresTestDatabase();
  const server = await startServer(
    { DATABASE_URL: database.url, FUSEBOX_MAX_CONCURRENCY: String(LIMIT) },
    ['--no-dashboard'],
    120_000,
  );
  const standin = await startSandboxFusionStandin();
  const dir = await mkdtemp(join(tmpdir(), 'fusebox-bench-e2e-'));
  try {
    const demo = [
      '| episodes | in flight | seconds | episodes/s | tool executions/s | server executions/s | mean reward | limiter wait share | API overhead share |',
      '|---|---|---|---|---|---|---|---|---|',
      await demoRow(server.url, database.url, dir),
    ].join('\n');
    console.log(demo);

    const backends: Backend[] = [
      {
        name: 'SandboxFusion-style baseline: fresh python3 per call, every turn replays the earlier cells',
        tool: () =>
          new CodeInterpreterTool({
            sandbox_fusion_url: `${standin.url}/run_code`,
            num_workers: CONCURRENCY,
            rate_limit: LIMIT,
          }),
        replay: true,
        sources: null,
      },
      {
        name: 'Fusebox `/run_code`: a fresh sandbox per call, every turn replays the earlier cells',
        tool: () =>
          new CodeInterpreterTool({
            sandbox_fusion_url: `${server.url}/run_code`,
            num_workers: CONCURRENCY,
            enable_global_rate_limit: false,
          }),
        replay: true,
        sources: ['run_code'],
      },
      {
        name: 'Fusebox sessions: one sandboxed interpreter per episode, each turn runs its own cell',
        tool: () => new SessionCodeTool(server.url),
        replay: false,
        sources: ['sandbox_cell'],
      },
    ];
    const runs: { row: string; alone: number[] }[] = [];
    for (const backend of backends) runs.push(await statefulRun(backend, database.url));
    const stateful = [
      '| code tool | episodes | tool calls | seconds | episodes/s | executions/s | p50 turn 1 ms | p50 turn 2 ms | p50 turn 3 ms | limiter wait share | API overhead share |',
      '|---|---|---|---|---|---|---|---|---|---|---|',
      ...runs.map((run) => run.row),
    ].join('\n');
    console.log(`\n${stateful}`);
    const baseline = runs[0]?.alone ?? [];
    const perTurn = [
      '| code tool | turn 1 ms | turn 2 ms | turn 3 ms | speed-up over the baseline, turn 1 / 2 / 3 |',
      '|---|---|---|---|---|',
      ...runs.map(({ alone }, index) => {
        const speedUps = alone.map((ms, turn) => `${((baseline[turn] ?? NaN) / ms).toFixed(1)}×`).join(' / ');
        return `| ${backends[index]?.name ?? ''} | ${alone.map((ms) => ms.toFixed(0)).join(' | ')} | ${speedUps} |`;
      }),
    ].join('\n');
    console.log(`\n${perTurn}`);

    const cpu = cpus();
    const machine = `${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}, load average ${load} at start`;
    const results = fileURLToPath(new URL('RESULTS.md', import.meta.url));
    const markdown =
      `# End to end: the demo's workload, and stateful turns against a SandboxFusion-style baseline\n\n` +
      `- command: \`${COMMAND}\`\n- date: ${new Date().toISOString()}\n- machine: ${machine}\n\n` +
      `## \`fusebox demo\`, scripted\n\n` +
      `\`fusebox demo --episodes ${EPISODES} --steps 1 --concurrency ${CONCURRENCY}\` against a real \`fusebox serve\` ` +
      `(global limit ${LIMIT}, executor at its default of one run per core) on a fresh database, after a ` +
      `${WARM_UP_EPISODES}-episode warm-up run: half GSM8K episodes (code_interpreter + calc_gsm8k_reward), half ` +
      `coding tasks through the session API, 3 assistant turns each, with the scripted mix of right and wrong ` +
      `answers, malformed calls, 3 s timeouts and crashes. Seconds are the demo's own, dump and import included. ` +
      `Tool executions are the tool calls that ran code; server executions add the tests /compute_reward runs. ` +
      `Limiter wait share: the share of the server's execution time (request to finish) spent waiting for a ` +
      `permit. API overhead share: the share of the client's tool-call time that the server's rows do not ` +
      `account for (HTTP, parsing, the session bookkeeping around each run).\n\n${demo}\n\n` +
      `## Stateful turns: per-call sandboxes against sessions\n\n` +
      `${EPISODES} scripted episodes, ${CONCURRENCY} in flight, after a ${WARM_UP_EPISODES}-episode warm-up: 3 code ` +
      `turns that build on each other (100 000 random numbers, then sorted, then bucketed), then the answer. A ` +
      `stateless sandbox forgets everything between calls, so turn n re-sends cells 1…n, as a model must; a ` +
      `session keeps the interpreter, so each turn sends its own cell. The baseline has verl's client-side ` +
      `global limit of ${LIMIT} (\`rate_limit\`); the Fusebox runs have none on the client and Fusebox's own limit ` +
      `of ${LIMIT} on the server. Turn latency is the tool call as the client sees it, queueing included.\n\n` +
      `${stateful}\n\n` +
      `### One episode at a time\n\n` +
      `The same episodes, ${SEQUENTIAL_EPISODES} of them one after another, so each turn's latency is its own work ` +
      `and overhead with no queueing: p50 per turn, and the baseline's p50 divided by each row's.\n\n${perTurn}\n`;
    await writeResults(results, markdown);
  } finally {
    await standin.stop();
    await server.stop();
    await database.drop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
