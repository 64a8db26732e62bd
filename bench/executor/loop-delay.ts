// How long forked Python runs hold the executor's event loop: print(1) at concurrency 16 through
// `executor.runCode` with 16 zygotes, for this checkout and, side by side, the executor as it was at --baseline
// (each in its own process, in turn, --rounds times), with the event loop's delay (perf_hooks, 1 ms resolution) and the
// process's CPU per run. Usage (as root): node --conditions=@fusebox/source --import tsx
// bench/executor/loop-delay.ts --baseline COMMIT [--runs 2000] [--rounds 5] [--out LOOP-DELAY.md]
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildAtCommit } from '../api/baseline-build';
import { writeResults } from '../write-results';
import { type PrintRunner, printRuns } from './print-runs';

const COMMAND = 'node --conditions=@fusebox/source --import tsx bench/executor/loop-delay.ts';
const CHECKOUT = fileURLToPath(new URL('../../', import.meta.url));
const CONCURRENCY = 16;
const WARM_UP_RUNS = 200;

interface Measured {
  seconds: number;
  delayP50Ms: number;
  delayP99Ms: number;
  delayMaxMs: number;
  cpuPerRunMs: number;
}

/** In a child: the executor of the tree at `root`, measured over `runs` print(1) runs; prints one JSON line. */
async function measure(root: string, runs: number): Promise<void> {
  const { createExecutor } = (await import(resolve(root, 'packages/local-sandbox/src/executor.ts'))) as {
    createExecutor: (
      options: object,
    ) => Promise<PrintRunner & { close(): Promise<void>; stats(): { idleZygotes: number } }>;
  };
  const executor = await createExecutor({
    concurrency: CONCURRENCY,
    pythonZygote: true,
    pythonZygotes: CONCURRENCY,
  });
  while (executor.stats().idleZygotes < CONCURRENCY) await new Promise((done) => setTimeout(done, 50));
  await printRuns(executor, CONCURRENCY, WARM_UP_RUNS);
  const delay = monitorEventLoopDelay({ resolution: 1 });
  const cpu = process.cpuUsage();
  delay.enable();
  const { seconds } = await printRuns(executor, CONCURRENCY, runs);
  delay.disable();
  const used = process.cpuUsage(cpu);
  await executor.close();
  const measured: Measured = {
    seconds,
    delayP50Ms: delay.percentile(50) / 1e6,
    delayP99Ms: delay.percentile(99) / 1e6,
    delayMaxMs: delay.max / 1e6,
    cpuPerRunMs: (used.user + used.system) / 1000 / runs,
  };
  console.log(JSON.stringify(measured));
}

function inChild(root: string, runs: number): Measured {
  const output = execFileSync(
    process.execPath,
    [
      '--conditions=@fusebox/source',
      '--import',
      'tsx',
      fileURLToPath(import.meta.url),
      '--child',
      root,
      '--runs',
      String(runs),
    ],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return JSON.parse(output.trim().split('\n').at(-1)!) as Measured;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      baseline: { type: 'string' },
      child: { type: 'string' },
      runs: { type: 'string', default: '2000' },
      rounds: { type: 'string', default: '5' },
      out: { type: 'string', default: 'LOOP-DELAY.md' },
    },
  });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1)
    throw new Error(`--runs must be a positive integer, not ${values.runs}`);
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1)
    throw new Error(`--rounds must be a positive integer, not ${values.rounds}`);
  if (values.child) return measure(values.child, runs);
  if (!values.baseline) throw new Error('--baseline COMMIT is required: the executor to compare with');
  const loadBefore = loadavg();
  const baseline = buildAtCommit(values.baseline);
  const baselineRoot = resolve(baseline.bin, '../../../..');
  const results: Record<'ours' | 'baseline', Measured[]> = { ours: [], baseline: [] };
  try {
    for (let round = 1; round <= rounds; round += 1) {
      for (const side of ['ours', 'baseline'] as const) {
        process.stderr.write(`round ${round} of ${rounds}: ${side} …\n`);
        results[side].push(inChild(side === 'ours' ? CHECKOUT : baselineRoot, runs));
      }
    }
  } finally {
    baseline.remove();
  }
  const row = (label: string, pick: (m: Measured) => number, digits: number) => {
    const [ours, theirs] = [median(results.ours.map(pick)), median(results.baseline.map(pick))];
    return `| ${label} | ${ours.toFixed(digits)} | ${theirs.toFixed(digits)} | ${(ours / theirs).toFixed(2)}× |`;
  };
  const table = [
    `| measure (median of ${rounds} rounds) | this checkout | baseline ${values.baseline.slice(0, 7)} | ratio |`,
    '| --- | --- | --- | --- |',
    row('event-loop delay p50, ms', (m) => m.delayP50Ms, 2),
    row('event-loop delay p99, ms', (m) => m.delayP99Ms, 2),
    row('event-loop delay max, ms', (m) => m.delayMaxMs, 1),
    row('API process CPU per run, ms', (m) => m.cpuPerRunMs, 2),
    row(`print(1) runs per second at c=${CONCURRENCY}`, (m) => runs / m.seconds, 0),
  ].join('\n');
  const commit = execFileSync('git', ['-C', CHECKOUT, 'rev-parse', '--short', 'HEAD'], {
    encoding: 'utf8',
  }).trim();
  const dirty = execFileSync('git', ['-C', CHECKOUT, 'status', '--porcelain', '--untracked-files=no'], {
    encoding: 'utf8',
  }).trim();
  const load = (averages: number[]) => averages.map((average) => average.toFixed(1)).join(' ');
  await writeResults(
    new URL(values.out, import.meta.url),
    [
      '# Event-loop delay of forked runs',
      '',
      `Command: \`${COMMAND} --baseline ${values.baseline}\``,
      `Date: ${new Date().toISOString()}`,
      `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; load average ${load(loadBefore)} before, ${load(loadavg())} after`,
      '',
      `${runs} print(1) runs at concurrency ${CONCURRENCY} after ${WARM_UP_RUNS} warm-up ones, through \`executor.runCode\` in process (16 zygotes, no HTTP), for this checkout (${commit}${dirty ? ' with uncommitted changes' : ''}) and the executor at the baseline, each in its own process, in turn, ${rounds} rounds. The delay is perf_hooks' \`monitorEventLoopDelay\` (1 ms resolution) over the measured runs; CPU is that process's own (user and system), not its sandboxes'.`,
      '',
      table,
      '',
    ].join('\n'),
  );
}

await main();
