// How long an interpreter session takes from its creation to its first cell's answer, side by side in one run:
// sessions forked from the session zygote (pythonZygote on) against sessions that take a warm interpreter
// sandbox (pythonZygote off, the path every session took before), one at a time and in bursts. Also the CPU a
// session's start costs, from the cgroup accounting of every sandbox, and the session zygote's idle memory.
// Usage (as root): node --conditions=@fusebox/source --import tsx bench/executor/session-first-cell.ts
import { readFileSync, readdirSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { type Executor, createExecutor } from '@fusebox/local-sandbox/executor';
import { percentile } from '../limiter/measures';
import { markdownTable, writeResults } from '../write-results';

const COMMAND = 'node --conditions=@fusebox/source --import tsx bench/executor/session-first-cell.ts';
const PATTERNS = [
  { name: 'one at a time, 1 s apart', concurrency: 1, total: 20, gapMs: 1_000 },
  { name: '4 at once, back to back', concurrency: 4, total: 40, gapMs: 0 },
  { name: '16 at once, back to back', concurrency: 16, total: 80, gapMs: 0 },
];
/** Where the executors of this process make their cpuacct cgroups (see cgroups.ts). */
const LAUNCHERS_CPUACCT = '/sys/fs/cgroup/cpuacct/fusebox';

interface Measure {
  count: number;
  p50: number;
  p99: number;
  /** CPU of every sandbox (zygotes, forked sessions, warm sandboxes and their refills) per session, ms. */
  cpuMs: number;
}

/**
 * Creates `total` sessions, `concurrency` at a time with `gapMs` between one's end and the next's start, and
 * times each from its creation to its first cell's answer (the first tenth dropped as warm-up).
 */
async function firstCells(
  executor: Executor,
  concurrency: number,
  total: number,
  gapMs: number,
): Promise<Measure> {
  const latencies: number[] = [];
  let next = 0;
  const cpuBefore = sandboxesCpuMs();
  const worker = async () => {
    while (next < total) {
      const index = next++;
      const started = performance.now();
      const { id } = await executor.sessions.create();
      const cell = await executor.sessions.run(id, 'print(1)');
      const elapsed = performance.now() - started;
      executor.sessions.close(id);
      if (cell.stdout !== '1\n') throw new Error(`a first cell answered ${JSON.stringify(cell)}`);
      if (index >= Math.floor(total / 10)) latencies.push(elapsed);
      await new Promise((resolve) => setTimeout(resolve, gapMs));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  // The pool's refills after the burst are part of what its sessions cost.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const cpuMs = (sandboxesCpuMs() - cpuBefore - 3_000 * idleCpuMsPerMs) / total;
  latencies.sort((a, b) => a - b);
  return { count: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99), cpuMs };
}

/** CPU used so far by every sandbox of this process's executors (and of their removed cgroups, via the parents). */
function sandboxesCpuMs(): number {
  let total = 0;
  for (const entry of readdirSync(LAUNCHERS_CPUACCT)) {
    if (!entry.startsWith(`${process.pid}-`)) continue;
    total += Number(readFileSync(`${LAUNCHERS_CPUACCT}/${entry}/cpuacct.usage`, 'utf8')) / 1e6;
  }
  return total;
}

/** What idle sandboxes burn per ms without sessions (measured once per executor; about nothing). */
let idleCpuMsPerMs = 0;

async function measureIdle(): Promise<void> {
  const before = sandboxesCpuMs();
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  idleCpuMsPerMs = (sandboxesCpuMs() - before) / 3_000;
}

/** RSS and PSS of the session zygote (Python with sessions on in its argv, its parent bubblewrap), in MB. */
function sessionZygoteMemory(): { rssMB: number; pssMB: number } | undefined {
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      const parent = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[1];
      if (
        readFileSync(`/proc/${pid}/comm`, 'utf8') !== 'python3\n' ||
        !readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('"sessions":true') ||
        readFileSync(`/proc/${parent}/comm`, 'utf8') !== 'bwrap\n'
      )
        continue;
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      const kB = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0);
      return { rssMB: kB('Rss') / 1024, pssMB: kB('Pss') / 1024 };
    } catch {
      // It ended meanwhile.
    }
  }
  return undefined;
}

/** The session zygote starts with the first session (which goes warm); then it forks one ahead. */
async function sessionZygoteUp(executor: Executor): Promise<void> {
  const { id } = await executor.sessions.create();
  executor.sessions.close(id);
  const asked = performance.now();
  while (!executor.stats().sessionZygoteReady) {
    if (performance.now() - asked > 30_000) throw new Error('the session zygote did not start within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function measure(pythonZygote: boolean): Promise<{ rows: Measure[]; forked: number }> {
  const executor = await createExecutor({ pythonZygote, maxSessions: 64, warn: () => {} });
  try {
    if (pythonZygote) await sessionZygoteUp(executor);
    await new Promise((resolve) => setTimeout(resolve, 3_000)); // the warm pool fills
    await measureIdle();
    const rows: Measure[] = [];
    for (const pattern of PATTERNS) {
      rows.push(await firstCells(executor, pattern.concurrency, pattern.total, pattern.gapMs));
      process.stderr.write('.');
    }
    return { rows, forked: executor.stats().forkedSessions };
  } finally {
    await executor.close();
  }
}

async function main(): Promise<void> {
  const load = loadavg().map((value) => value.toFixed(1));
  const forked = await measure(true);
  const memory = await (async () => {
    const executor = await createExecutor({ pythonZygote: true, warn: () => {} });
    await sessionZygoteUp(executor);
    const found = sessionZygoteMemory();
    await executor.close();
    return found;
  })();
  const warm = await measure(false);
  process.stderr.write('\n');
  const total = PATTERNS.reduce((sum, pattern) => sum + pattern.total, 0);
  const rows = PATTERNS.flatMap((pattern, index) =>
    [
      ['forked from the session zygote', forked.rows[index] as Measure],
      ['warm interpreter sandbox (cold when none is warm)', warm.rows[index] as Measure],
    ].map(([path, m]) => {
      const { count, p50, p99, cpuMs } = m as Measure;
      return [pattern.name, path as string, count, p50.toFixed(1), p99.toFixed(1), cpuMs.toFixed(1)];
    }),
  );
  const ratios = PATTERNS.map((pattern, index) => [
    pattern.name,
    `${((forked.rows[index] as Measure).p50 / (warm.rows[index] as Measure).p50).toFixed(3)}×`,
  ]);
  const markdown = [
    "# An interpreter session's first cell",
    '',
    `Command: \`${COMMAND}\``,
    `Date: ${new Date().toISOString()}`,
    `Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; load average ${load.join(' ')} before, ${loadavg()
      .map((value) => value.toFixed(1))
      .join(' ')} after`,
    '',
    'Each session is timed from `executor.sessions.create()` to the answer of its first cell, `print(1)` (no HTTP, no limiter), the first tenth of each pattern dropped as warm-up. Both executors have the default settings but `pythonZygote` and `maxSessions: 64`. CPU per session: every sandbox of the executor (the zygote, the forked sessions, the warm sandboxes and their refills after the burst), from cgroup cpuacct, less what they burn idle.',
    '',
    markdownTable(['pattern', 'path', 'sessions', 'p50 ms', 'p99 ms', 'CPU/session ms'], rows),
    '',
    `Sessions the forked executor forked: ${forked.forked} of ${total} (the others took a warm sandbox).`,
    '',
    '### First cell p50, forked ÷ warm',
    '',
    markdownTable(['pattern', 'ratio'], ratios),
    '',
    '### The idle session zygote',
    '',
    memory
      ? markdownTable(['RSS', 'PSS'], [[`${memory.rssMB.toFixed(0)} MB`, `${memory.pssMB.toFixed(0)} MB`]])
      : 'Not found.',
    '',
  ].join('\n');
  await writeResults(new URL('./SESSION-FIRST-CELL.md', import.meta.url), markdown);
  process.stdout.write(markdown);
}

await main();
