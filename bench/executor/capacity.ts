// Capacity for RL workloads (issue #16): runs that sleep or time out, as verl sends them. Starts `fusebox serve`
// (embedded, isolation on, every other setting at its default) as it is now and, with --baseline, as it was at a
// commit (its own build, see buildAtCommit), one after the other in one run, and measures:
// - 64 concurrent `time.sleep(5)` runs with FUSEBOX_MAX_CONCURRENCY=64: wall time until the last answer (target
//   < 8 s), their statuses, and /v1/ping's latency meanwhile (the API must not starve);
// - verl's pattern, all defaults: 100 runs that each time out (run_timeout 10 s, compile_timeout 10 s,
//   memory_limit_MB 1024) sent from 32 client threads, each giving up after compile + run timeout + 10 s
//   (verl's request_timeout) and never retrying a 429: how many come back as timeouts, 429s, or client give-ups.
// Usage: node --conditions=@fusebox/source --import tsx bench/executor/capacity.ts [--baseline COMMIT]
//   [--only sleep|verl] [--set NAME=VALUE ...] (settings for every build; the table names them)
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { buildAtCommit } from '../api/baseline-build';
import { FUSEBOX, processCpuMs } from '../run-fusebox';
import { writeResults } from '../write-results';

const COMMAND = 'node --conditions=@fusebox/source --import tsx bench/executor/capacity.ts';
const PORT = 18_960;
const URL_BASE = `http://127.0.0.1:${PORT}`;
/** After /v1/ping first answers: zygotes and warm sandboxes finish starting before the load begins. */
const SETTLE_MS = 5_000;
/** verl's API_TIMEOUT, added to compile_timeout + run_timeout for each request's client timeout. */
const VERL_API_TIMEOUT_S = 10;

/** --set NAME=VALUE: settings every server of the run gets. */
let extraSettings: Record<string, string> = {};

interface Server {
  /**
   * CPU time, in s, used so far by the server (its node process and its spawner) and by every sandbox it ran
   * (their cgroups' `cpuacct.usage`): what a burst costs whatever else the machine runs.
   */
  cpuS(): number;
  stop(): Promise<void>;
}

/** utime + stime of `pid` in s, 0 once it is gone. */
function processCpuS(pid: number): number {
  try {
    return processCpuMs(pid) / 1000;
  } catch {
    return 0;
  }
}

/** The children of `pid`. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** The CPU time of the sandboxes of server `pid` (its cgroups under cpuacct/fusebox, named after its pid), in s. */
function sandboxCpuS(pid: number): number {
  const base = '/sys/fs/cgroup/cpuacct/fusebox';
  if (!existsSync(base)) return 0;
  return readdirSync(base)
    .filter((name) => name.startsWith(`${pid}-`))
    .reduce((sum, name) => sum + Number(readFileSync(join(base, name, 'cpuacct.usage'), 'utf8')) / 1e9, 0);
}

/** Starts `fusebox serve` from `bin` on an empty embedded database with `env` added; resolves once it answers. */
async function startServer(bin: string, env: Record<string, string>): Promise<Server> {
  env = { ...env, ...extraSettings };
  const dataDir = mkdtempSync(join(tmpdir(), 'fusebox-capacity-'));
  const child = spawn(process.execPath, [bin, 'serve', '--no-dashboard'], {
    env: { ...process.env, PORT: String(PORT), FUSEBOX_DATA_DIR: dataDir, FUSEBOX_LOG_LEVEL: 'warn', ...env },
    stdio: 'ignore',
  });
  const exited = once(child, 'exit');
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${bin} exited with ${child.exitCode} before answering`);
    const answer = await fetch(`${URL_BASE}/v1/ping`).catch(() => undefined);
    if (answer?.ok) break;
    await sleep(100);
  }
  await sleep(SETTLE_MS);
  const pid = child.pid!;
  return {
    cpuS: () =>
      processCpuS(pid) +
      childrenOf(pid).reduce((sum, spawner) => sum + processCpuS(spawner), 0) +
      sandboxCpuS(pid),
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

type Outcome = string;

/** Posts one /run_code; its outcome: the answer's status (`Success`, `Failed`, ...), `HTTP n`, or `client gave up`. */
async function runCode(body: Record<string, unknown>, clientTimeoutMs: number): Promise<Outcome> {
  try {
    const answer = await fetch(`${URL_BASE}/run_code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(clientTimeoutMs),
    });
    if (answer.status !== 200) return `HTTP ${answer.status}`;
    const result = (await answer.json()) as { status: string; run_result?: { status?: string } | null };
    return result.run_result?.status === 'TimeLimitExceeded' ? 'TimeLimitExceeded' : result.status;
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') return 'client gave up';
    return `error: ${(error as Error).message}`;
  }
}

const count = (outcomes: Outcome[]) => {
  const counts = new Map<Outcome, number>();
  for (const outcome of outcomes) counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
  return [...counts].map(([outcome, n]) => `${n} ${outcome}`).join(', ');
};
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))] ?? NaN;

/** Pings /v1/ping every 100 ms until `done` settles; the latencies in ms. */
async function pingWhile(done: Promise<unknown>): Promise<number[]> {
  let settled = false;
  void done.finally(() => (settled = true));
  const latencies: number[] = [];
  while (!settled) {
    const started = performance.now();
    await fetch(`${URL_BASE}/v1/ping`).catch(() => undefined);
    latencies.push(performance.now() - started);
    await sleep(100);
  }
  return latencies;
}

interface SleepResult {
  wallS: number;
  cpuS: number;
  outcomes: string;
  pingP50: number;
  pingMax: number;
}

/** 64 concurrent `time.sleep(5)` runs at once, each with SandboxFusion's default timeouts and no client timeout. */
async function sleepers(bin: string): Promise<SleepResult> {
  const server = await startServer(bin, { FUSEBOX_MAX_CONCURRENCY: '64' });
  try {
    const cpuBefore = server.cpuS();
    const started = performance.now();
    const runs = Promise.all(
      Array.from({ length: 64 }, () =>
        runCode({ code: 'import time\ntime.sleep(5)', language: 'python' }, 600_000),
      ),
    );
    const pings = await pingWhile(runs);
    const outcomes = await runs;
    return {
      wallS: (performance.now() - started) / 1000,
      cpuS: server.cpuS() - cpuBefore,
      outcomes: count(outcomes),
      pingP50: percentile(pings, 0.5),
      pingMax: Math.max(...pings),
    };
  } finally {
    await server.stop();
  }
}

/** verl's pattern: 100 runs that time out, from 32 threads with verl's client timeout, no retry of a 429. */
async function verlTimeouts(bin: string): Promise<{ wallS: number; outcomes: string }> {
  const server = await startServer(bin, {});
  try {
    const body = {
      code: 'import time\ntime.sleep(60)',
      language: 'python',
      compile_timeout: 10,
      run_timeout: 10,
      memory_limit_MB: 1024,
    };
    const clientTimeoutMs = (body.compile_timeout + body.run_timeout + VERL_API_TIMEOUT_S) * 1000;
    const outcomes: Outcome[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < 100) {
          next += 1;
          outcomes.push(await runCode(body, clientTimeoutMs));
        }
      }),
    );
    return { wallS: (performance.now() - started) / 1000, outcomes: count(outcomes) };
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      baseline: { type: 'string' },
      only: { type: 'string' },
      set: { type: 'string', multiple: true },
    },
  });
  extraSettings = Object.fromEntries(
    (values.set ?? []).map((setting) => [setting.split('=')[0]!, setting.split('=').slice(1).join('=')]),
  );
  const baseline = values.baseline ? buildAtCommit(values.baseline) : undefined;
  const builds: [string, string][] = [
    ...(baseline ? [[`baseline ${values.baseline!.slice(0, 7)}`, baseline.bin] as [string, string]] : []),
    ['this checkout', FUSEBOX],
  ];
  const load = loadavg()[0]!.toFixed(1);
  const sleepRows: string[] = [];
  const verlRows: string[] = [];
  const sleepWalls: number[] = [];
  try {
    for (const [name, bin] of builds) {
      if (values.only !== 'verl') {
        console.error(`${name}: 64 x sleep(5)...`);
        const sleep5 = await sleepers(bin);
        sleepWalls.push(sleep5.wallS);
        sleepRows.push(
          `| ${name} | ${sleep5.wallS.toFixed(1)} | ${sleep5.cpuS.toFixed(1)} | ${sleep5.outcomes} | ${sleep5.pingP50.toFixed(0)} | ${sleep5.pingMax.toFixed(0)} |`,
        );
        console.error(sleepRows.at(-1));
      }
      if (values.only !== 'sleep') {
        console.error(`${name}: verl's 100 timeouts from 32 threads...`);
        const verl = await verlTimeouts(bin);
        verlRows.push(`| ${name} | ${verl.wallS.toFixed(0)} | ${verl.outcomes} |`);
        console.error(verlRows.at(-1));
      }
    }
  } finally {
    baseline?.remove();
  }
  const ratio =
    sleepWalls.length === 2
      ? ` (this checkout / baseline: ${(sleepWalls[1]! / sleepWalls[0]!).toFixed(2)}×)`
      : '';
  const markdown = [
    '# Executor capacity for RL workloads',
    '',
    `Command: \`${COMMAND}${values.baseline ? ` --baseline ${values.baseline}` : ''}\`, on ${new Date().toISOString().slice(0, 10)},`,
    `${availableParallelism()} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, load average ${load} at the start (a shared`,
    'machine). Each build runs `fusebox serve` embedded, with isolation on and every setting at its default',
    'except where said; the builds run one after the other in the same run.',
    '',
    `## 64 concurrent \`time.sleep(5)\` runs, \`FUSEBOX_MAX_CONCURRENCY=64\` (target < 8 s)${ratio}`,
    '',
    "CPU s: what the burst cost the server and its sandboxes together (node, spawner, and the sandboxes' cgroup",
    'accounting): the part of the wall time that the load of other work on this shared machine stretches.',
    '',
    '| build | wall s | CPU s | outcomes | /v1/ping p50 ms | /v1/ping max ms |',
    '| --- | --: | --: | --- | --: | --: |',
    ...sleepRows,
    '',
    "## verl's pattern: 100 runs that time out at 10 s, from 32 client threads, all defaults",
    '',
    'Each client gives up after compile_timeout + run_timeout + 10 s (30 s), as verl does, and does not retry a',
    '429. `TimeLimitExceeded` is the right answer for every one of these runs.',
    '',
    '| build | wall s | outcomes |',
    '| --- | --: | --- |',
    ...verlRows,
    '',
  ].join('\n');
  await writeResults(new URL('./CAPACITY.md', import.meta.url), markdown);
  console.log(markdown);
}

await main();
