// Forked Python runs (FUSEBOX_PYTHON_ZYGOTE) against the cold path and the floors, side by side in one run:
// `executor.runCode` with zygotes, the same without, a bare bubblewrap spawn and a bare unsandboxed python3, at
// concurrency 1, 4, 16 and 64, with the CPU each run costs (cgroup v1 cpuacct) and the zygotes' idle memory. A
// session's first cell: session-first-cell.ts.
// Usage (as root): node --conditions=@fusebox/source --import tsx bench/executor/forked.ts
import { mkdirSync, readFileSync, readdirSync, readlinkSync, rmdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { type Executor, createExecutor } from '@fusebox/local-sandbox/executor';
import { DEFAULT_ZYGOTE_MODULES } from '@fusebox/local-sandbox/executor-options';
import { percentile } from '../limiter/measures';
import { markdownTable, writeResults } from '../write-results';
import { BWRAP_FLOOR, spawnCall } from './floor';

const COMMAND = 'node --conditions=@fusebox/source --import tsx bench/executor/forked.ts';
const PRINT = 'print(1)';
const SYMPY = 'import sympy; print(sympy.sqrt(8))';
const CONCURRENCIES = [1, 4, 16, 64];
/** Calls per measurement at each concurrency; the first tenth of each is warm-up, not counted. */
const CALLS: Record<number, number> = { 1: 100, 4: 200, 16: 400, 64: 800 };
/** The same for sympy, whose cold start costs a second of CPU and more. */
const SYMPY_CALLS: Record<number, number> = { 1: 30, 4: 60, 16: 120, 64: 240 };
/** Executor slots and zygotes: 16, so c=16 compares like with like (the product keeps 2 per core by default). */
const SLOTS = 16;
/**
 * Everything this process starts (spawner, bare spawns) is counted in this cpuacct group, but for sandboxes,
 * zygotes and runs, which the executors' launchers count in cgroups of their own: {@link LAUNCHERS_CPUACCT}.
 */
const CPUACCT = `/sys/fs/cgroup/cpuacct/fusebox-bench-${process.pid}`;
/** Where the executors of this process make their cpuacct cgroups, one parent per launcher (see cgroups.ts). */
const LAUNCHERS_CPUACCT = '/sys/fs/cgroup/cpuacct/fusebox';
/** How those parents' names start (process-owner.ts): this pid, in this pid namespace. */
const LAUNCHER_PREFIX = `${process.pid}-n${/\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1]}.`;

/** One call; an executor's returns the CPU time its run reported from the run's own cgroup, when it did. */
type Call = () => Promise<number | undefined | void>;
interface Measure {
  p50: number;
  p99: number;
  perSecond: number;
  /** CPU of every process of the bench (this one included) per call, ms. */
  cpuMs: number;
  /** The same without this process's own CPU: what the sandboxes and spawned processes used. */
  childCpuMs: number;
  /** What forked runs reported from their own cgroups (the run's processes alone), ms per run; NaN if none. */
  runCpuMs: number;
}

function executorCall(executor: () => Executor, code: string, expected: string): Call {
  return async () => {
    const { response, cpuMs } = await executor().runCode({ code, language: 'python' });
    if (response.run_result?.stdout !== expected) throw new Error(JSON.stringify(response));
    return cpuMs;
  };
}

const usageMs = (dir: string) => Number(readFileSync(`${dir}/cpuacct.usage`, 'utf8')) / 1e6;
const cpuUsageMs = () =>
  usageMs(CPUACCT) +
  readdirSync(LAUNCHERS_CPUACCT)
    .filter((name) => name.startsWith(LAUNCHER_PREFIX))
    .reduce((sum, name) => sum + usageMs(`${LAUNCHERS_CPUACCT}/${name}`), 0);
const ownCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

async function measure(call: Call, concurrency: number, calls: number): Promise<Measure> {
  const warmup = Math.floor(calls / 10);
  const latencies: number[] = [];
  let next = 0;
  let countedFrom = 0;
  let cpuFrom = 0;
  let ownFrom = 0;
  let runCpu = 0;
  let runsReporting = 0;
  const worker = async () => {
    while (next < calls) {
      const index = next++;
      if (index === warmup) {
        countedFrom = performance.now();
        cpuFrom = cpuUsageMs();
        ownFrom = ownCpuMs();
      }
      const started = performance.now();
      const reported = await call();
      if (index < warmup) continue;
      latencies.push(performance.now() - started);
      if (typeof reported === 'number') {
        runCpu += reported;
        runsReporting += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const wall = performance.now() - countedFrom;
  const cpu = cpuUsageMs() - cpuFrom;
  const own = ownCpuMs() - ownFrom;
  latencies.sort((a, b) => a - b);
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    perSecond: (latencies.length * 1000) / wall,
    cpuMs: cpu / latencies.length,
    childCpuMs: (cpu - own) / latencies.length,
    runCpuMs: runCpu / runsReporting,
  };
}

/** RSS and PSS of this process's idle zygotes (recognised by `python-zygote.py` in their argv, and by descent). */
function zygoteMemory(): { count: number; rssMB: number; pssMB: number } {
  let count = 0;
  let rss = 0;
  let pss = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      // Python with the zygote's argv (bubblewrap, which started it, carries that argv too).
      if (readFileSync(`/proc/${pid}/comm`, 'utf8') !== 'python3\n') continue;
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('python-zygote.py')) continue;
      // This process's own (other processes on the machine may keep zygotes too).
      if (!startedHere(Number(pid))) continue;
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      count += 1;
      rss += Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      pss += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
    } catch {
      // It exited meanwhile.
    }
  }
  return { count, rssMB: rss / 1024, pssMB: pss / 1024 };
}

/** True when `pid` descends from this process. */
function startedHere(pid: number): boolean {
  for (let current = pid; current > 1;) {
    if (current === process.pid) return true;
    const stat = readFileSync(`/proc/${current}/stat`, 'utf8');
    current = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  }
  return false;
}

function hasSympy(): Promise<boolean> {
  return spawnCall(['/usr/bin/python3', '-c', 'import sympy; print(1)'], '1\n')().then(
    () => true,
    () => false,
  );
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 50));
}

async function main() {
  mkdirSync(CPUACCT);
  writeFileSync(`${CPUACCT}/cgroup.procs`, String(process.pid));
  const loadBefore = loadavg();
  const options = { concurrency: SLOTS, warn: (message: string) => console.warn(message) };
  const cold = await createExecutor(options);
  const forked = await createExecutor({ ...options, pythonZygote: true, pythonZygotes: SLOTS });
  await until(() => forked.stats().idleZygotes === SLOTS);
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const idle = zygoteMemory();
  const sympy = await hasSympy();
  // Zygotes that imported sympy too, for the sympy rows (print(1) keeps the default list: a bigger zygote
  // forks slower).
  const forkedSympy = sympy
    ? await createExecutor({
        ...options,
        pythonZygote: true,
        pythonZygotes: SLOTS,
        pythonZygoteModules: [...DEFAULT_ZYGOTE_MODULES, 'sympy'],
      })
    : undefined;
  let idleSympy: ReturnType<typeof zygoteMemory> | undefined;
  if (forkedSympy) {
    await until(() => forkedSympy.stats().idleZygotes === SLOTS);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const all = zygoteMemory();
    idleSympy = {
      count: all.count - idle.count,
      rssMB: all.rssMB - idle.rssMB,
      pssMB: all.pssMB - idle.pssMB,
    };
  }

  const programs: [string, string, string, Executor, Record<number, number>][] = [
    ['print(1)', PRINT, '1\n', forked, CALLS],
  ];
  if (forkedSympy) programs.push(['sympy', SYMPY, '2*sqrt(2)\n', forkedSympy, SYMPY_CALLS]);
  const rows: (string | number)[][] = [];
  const summary = new Map<string, Measure>();
  let forkedCalls = 0;
  let forkedRuns = 0;
  for (const [programName, code, expected, zygotes, calls] of programs) {
    const forkedBefore = zygotes.stats().forkedRuns;
    const modes: [string, Call][] = [
      ['forked (executor, zygote)', executorCall(() => zygotes, code, expected)],
      ['cold (executor, warm bwrap)', executorCall(() => cold, code, expected)],
      ['bare bwrap spawn', spawnCall(['bwrap', ...BWRAP_FLOOR, '/usr/bin/python3', '-c', code], expected)],
      ['bare python3 -c (no sandbox)', spawnCall(['/usr/bin/python3', '-c', code], expected)],
    ];
    for (const concurrency of CONCURRENCIES) {
      for (const [name, call] of modes) {
        const result = await measure(call, concurrency, calls[concurrency]!);
        if (name.startsWith('forked')) forkedCalls += calls[concurrency]!;
        summary.set(`${programName}|${name}|${concurrency}`, result);
        rows.push([
          programName,
          concurrency,
          name,
          result.p50.toFixed(1),
          result.p99.toFixed(1),
          Math.round(result.perSecond),
          result.cpuMs.toFixed(1),
          result.childCpuMs.toFixed(1),
          Number.isNaN(result.runCpuMs) ? '' : result.runCpuMs.toFixed(1),
        ]);
        process.stderr.write('.');
      }
    }
    forkedRuns += zygotes.stats().forkedRuns - forkedBefore;
  }
  process.stderr.write('\n');
  const forkedShare = forkedRuns / forkedCalls;
  await Promise.all([cold.close(), forked.close(), forkedSympy?.close()]);

  const get = (program: string, name: string, concurrency: number) =>
    summary.get(`${program}|${name}|${concurrency}`)!;
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  const forkedRow = 'forked (executor, zygote)';
  const targets = [
    [
      '`print(1)` p50, forked ÷ bare python3, c=1',
      ratio(get('print(1)', forkedRow, 1).p50, get('print(1)', 'bare python3 -c (no sandbox)', 1).p50),
      '≤ 0.5×',
    ],
    [
      '`print(1)` exec/s, forked ÷ bare bwrap, c=16',
      ratio(get('print(1)', forkedRow, 16).perSecond, get('print(1)', 'bare bwrap spawn', 16).perSecond),
      '≥ 3×',
    ],
    [
      '`print(1)` exec/s, forked ÷ bare python3, c=16',
      ratio(
        get('print(1)', forkedRow, 16).perSecond,
        get('print(1)', 'bare python3 -c (no sandbox)', 16).perSecond,
      ),
      '≥ 2×',
    ],
    [
      '`print(1)` p50, forked ÷ cold, c=1 (this change)',
      ratio(get('print(1)', forkedRow, 1).p50, get('print(1)', 'cold (executor, warm bwrap)', 1).p50),
      '',
    ],
    [
      'CPU per `print(1)` run, forked, c=1 (all processes, the API’s included)',
      `${get('print(1)', forkedRow, 1).cpuMs.toFixed(1)} ms`,
      '≤ 3 ms',
    ],
    sympy
      ? [
          'sympy p50, forked ÷ bare python3, c=1',
          ratio(get('sympy', forkedRow, 1).p50, get('sympy', 'bare python3 -c (no sandbox)', 1).p50),
          '≤ 0.1×',
        ]
      : ['sympy p50, forked ÷ bare python3, c=1', 'not measured: no sympy for /usr/bin/python3', '≤ 0.1×'],
  ];
  const report = [
    '### Python runs, forked against cold and the floors (ms; CPU per call from cgroup cpuacct)',
    '',
    markdownTable(
      [
        'program',
        'c',
        'what',
        'p50 ms',
        'p99 ms',
        'exec/s',
        'CPU/run ms',
        'CPU/run ms w/o API',
        'run’s own cgroup',
      ],
      rows,
    ),
    '',
    `Forked runs that found an idle zygote: ${(forkedShare * 100).toFixed(0)}% (the rest ran cold).`,
    '',
    '### Targets (issue #16)',
    '',
    markdownTable(['measure', 'measured', 'target'], targets),
    '',
    '### Idle zygotes',
    '',
    markdownTable(
      ['zygotes', 'RSS in all', 'PSS in all (shared pages split)', 'modules'],
      [
        [
          idle.count,
          `${idle.rssMB.toFixed(0)} MB`,
          `${idle.pssMB.toFixed(0)} MB`,
          'the default list (common stdlib modules)',
        ],
        ...(idleSympy
          ? [
              [
                idleSympy.count,
                `${idleSympy.rssMB.toFixed(0)} MB`,
                `${idleSympy.pssMB.toFixed(0)} MB`,
                'the default list and sympy',
              ],
            ]
          : []),
      ],
    ),
  ].join('\n');
  console.log(report);
  writeFileSync('/sys/fs/cgroup/cpuacct/cgroup.procs', String(process.pid));
  rmdirSync(CPUACCT);

  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  await writeResults(
    new URL('FORKED.md', import.meta.url),
    [
      '# Forked Python runs benchmark',
      '',
      `Command: \`${COMMAND}\``,
      `Date: ${new Date().toISOString()}`,
      `Machine: ${machine}; load average ${loadBefore.map((l) => l.toFixed(1)).join(' ')} before, ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} after`,
      '',
      'One pass; each measurement drops its first tenth as warm-up. The executors run in this process with 16 ' +
        'slots (a forked one keeps 16 zygotes; the sympy rows use zygotes that imported sympy), called through `executor.runCode` (no HTTP, no limiter, no ' +
        "recording); the floors spawn bubblewrap with ARCHITECTURE.md's baseline isolation, and Debian's python3 " +
        'bare. CPU per run is the cpuacct usage of this process and everything it started, over the counted calls; ' +
        'the next column leaves this process (the executor, or the spawning loop) out; the last is what forked runs ' +
        "report from their own cgroup (the run's processes alone: not the zygote's fork, nor the API). At a load average far above " +
        'the core count (other tenants), latencies mostly measure the machine; CPU per run is the steadier comparison.',
      '',
      report,
      '',
    ].join('\n'),
  );
}

await main();
