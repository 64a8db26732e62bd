// Usage (as root, after setup built run-init): node --conditions=@fusebox/source --import tsx bench/executor/run-init-ab.ts
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { type Executor, createExecutor } from '@fusebox/local-sandbox/executor';
import { markdownTable, writeResults } from '../write-results';

const COMMAND = 'node --conditions=@fusebox/source --import tsx bench/executor/run-init-ab.ts';
const RUNS = 300;
/** Where the executors of this process keep their cpuacct cgroups (cgroups.ts: `fusebox/<pid>-<random>`). */
const CPUACCT = '/sys/fs/cgroup/cpuacct/fusebox';

/** CPU of every sandbox, zygote and run of this process's executors so far, in ms. */
function sandboxesCpuMs(): number {
  return readdirSync(CPUACCT)
    .filter((name) => name.startsWith(`${process.pid}-`))
    .reduce((sum, name) => sum + Number(readFileSync(`${CPUACCT}/${name}/cpuacct.usage`, 'utf8')) / 1e6, 0);
}

/**
 * What the machine charges for a page first touched: the cost a fork and its exit pay per page table and per
 * copied page, which set the floor of every row below (a VM's host can make it many times the usual ~0.2 µs).
 */
function firstTouchMicroseconds(): number {
  const script =
    'import mmap, time\nm = mmap.mmap(-1, 64 << 20)\nt = time.perf_counter()\n' +
    'for offset in range(0, 64 << 20, 4096): m[offset] = 1\nprint((time.perf_counter() - t) / (16384) * 1e6)';
  return Number(spawnSync('/usr/bin/python3', ['-c', script], { encoding: 'utf8' }).stdout);
}

interface Arm {
  name: string;
  executor: Executor;
  runCgroupMs: number[];
  allSandboxesMs: number[];
  latencyMs: number[];
}

async function main(): Promise<void> {
  const load = loadavg().map((value) => value.toFixed(1));
  const touch = firstTouchMicroseconds();
  // Both executors alike but for the run's pid 1; runs alternate between them, so the machine's drift hits both.
  const arms: Arm[] = await Promise.all(
    [
      ['run-init as pid 1', undefined],
      ['a copy of the zygote as pid 1', null],
    ].map(async ([name, init]) => ({
      name: name as string,
      executor: await createExecutor({
        pythonZygote: true,
        concurrency: 1,
        pythonZygoteMaxRuns: 10 * RUNS,
        pythonRunInit: init as null | undefined,
        warn: () => {},
      }),
      runCgroupMs: [],
      allSandboxesMs: [],
      latencyMs: [],
    })),
  );
  try {
    while (arms[0]?.executor.stats().idleZygotes === 0)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const init = await arms[0]?.executor.runCode({
      code: 'print(open("/proc/1/comm").read())',
      language: 'python',
    });
    if (init?.response.run_result?.stdout !== 'run-init\n\n')
      throw new Error('run-init is not built here: run setup');
    for (let index = 0; index < RUNS; index++) {
      for (const arm of arms) {
        while (arm.executor.stats().idleZygotes === 0) await new Promise((resolve) => setTimeout(resolve, 5));
        const before = sandboxesCpuMs();
        const begun = performance.now();
        const run = await arm.executor.runCode({ code: 'print(1)', language: 'python' });
        const latency = performance.now() - begun;
        if (run.response.run_result?.stdout !== '1\n')
          throw new Error(`a run answered ${JSON.stringify(run)}`);
        if (run.cpuMs === undefined) throw new Error('runs report no CPU time here (no cgroups?)');
        if (index < RUNS / 10) continue;
        arm.runCgroupMs.push(run.cpuMs);
        // The other executor is idle meanwhile: this is the run, its zygote's fork, and the idle zygotes' ticks.
        arm.allSandboxesMs.push(sandboxesCpuMs() - before);
        arm.latencyMs.push(latency);
      }
    }
    for (const arm of arms) {
      const forked = arm.executor.stats().forkedRuns;
      if (forked < RUNS) throw new Error(`${arm.name}: only ${forked} of ${RUNS} runs were forked`);
    }
  } finally {
    await Promise.all(arms.map((arm) => arm.executor.close()));
  }
  const median = (values: number[]) =>
    values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
  const [ours, baseline] = arms as [Arm, Arm];
  const row = (arm: Arm) => [
    arm.name,
    median(arm.runCgroupMs).toFixed(2),
    median(arm.allSandboxesMs).toFixed(2),
    median(arm.latencyMs).toFixed(2),
  ];
  const ratio = (pick: (arm: Arm) => number[]) => (median(pick(ours)) / median(pick(baseline))).toFixed(2);
  const markdown = [
    "# A forked run's pid 1: run-init against a copy of the zygote",
    '',
    `Command: \`${COMMAND}\``,
    `Date: ${new Date().toISOString()}`,
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; load average ${load.join(' ')} before; a page's first touch ${touch.toFixed(2)} µs`,
    '',
    `Two executors, one zygote each, alike but for \`pythonRunInit\`; ${RUNS} print(1) runs each, one at a time and`,
    'alternating (the first tenth dropped); medians. "Run cgroup" is what a run reports (`cpuMs`: its own',
    'processes); "all sandboxes" is every cgroup of the executors over the run (the zygote\'s fork and its loop',
    'included, the idle executor too).',
    '',
    markdownTable(
      ['pid 1 of each run', 'run cgroup CPU ms', 'all sandboxes CPU ms', 'latency ms'],
      [row(ours), row(baseline)],
    ),
    '',
    `run-init ÷ copy: run cgroup ${ratio((arm) => arm.runCgroupMs)}×, all sandboxes ${ratio((arm) => arm.allSandboxesMs)}×, latency ${ratio((arm) => arm.latencyMs)}×.`,
    '',
  ].join('\n');
  process.stdout.write(`${markdown}\n`);
  await writeResults(new URL('./RUN-INIT-AB.md', import.meta.url), markdown);
}

await main();
