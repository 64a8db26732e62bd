import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { type CpuSample, cpuStarvation } from '../src/cpu-starvation';
import { useExecutor } from './use-executor';

/** Constant evaluation g++ is busy with for minutes, on the CPU all along, before its operation limit ends it. */
const SLOW_COMPILE =
  'constexpr long f() { long s = 0; for (long i = 0; i < 200000; i++) for (long j = 0; j < 200000; j++) s += i ^ j; return s; }\n' +
  'int main() { constexpr long x = f(); return x & 1; }\n';

const sample = (
  atMs: number,
  usageMs: number,
  waits: readonly (readonly [number, number])[],
  allowedCores = 1,
): CpuSample => ({
  atMs,
  usageMs,
  waitsNs: new Map(waits.map(([thread, waitMs]) => [thread, waitMs * 1e6])),
  allowedCores,
});
const start = sample(0, 0, [[7, 0]]);

describe('whether a step that ran out of time was starved of CPU', () => {
  it('says so when it got under half its CPU while one thread waited for one over half the time', () => {
    expect(cpuStarvation('compile', 1000, start, sample(1000, 100, [[7, 800]]))).toBe(
      'the compile step ran out of its 1 s for want of CPU: in the 1000 ms measured it got 100 ms of the 1000 ms ' +
        'of CPU it may use, while one of its threads waited 800 ms in a run queue; the machine was overloaded, ' +
        "the result is not its program's (ask again, or lower FUSEBOX_EXECUTOR_CONCURRENCY)",
    );
  });

  it('leaves a step that had its share, waited for no CPU, or waited only on its own threads to its program', () => {
    // Busy on the CPU half the time: the program's own slowness.
    expect(cpuStarvation('compile', 1000, start, sample(1000, 500, [[7, 500]]))).toBeUndefined();
    // Blocked on something else (no CPU used, none waited for).
    expect(cpuStarvation('compile', 1000, start, sample(1000, 1, [[7, 1]]))).toBeUndefined();
    // Held to a quota of 0.1 core and given it: the wait is the quota's.
    expect(cpuStarvation('compile', 1000, start, sample(1000, 100, [[7, 900]], 0.1))).toBeUndefined();
    // Forty threads woken together on one CPU: 9.6 s of wait in all, 240 ms each, with 370 ms of CPU used.
    const crowd = Array.from({ length: 40 }, (_, index) => [100 + index, 240] as const);
    expect(cpuStarvation('compile', 1000, start, sample(1000, 370, crowd))).toBeUndefined();
  });

  // Thread 7 had waited 900 ms before the step; a smaller count is a reused thread id, all of whose wait is new.
  it.each([
    ['400 ms more', [[7, 1300]], undefined],
    ['600 ms more', [[7, 1500]], /waited 600 ms/],
    ['a reused id, 600', [[7, 600]], /waited 600 ms/],
    [
      '100 ms more, and a new thread 550',
      [
        [7, 1000],
        [8, 550],
      ],
      /waited 550 ms/,
    ],
  ] as const)('takes the longest wait of one thread from the first sample: %s', (_, waits, reason) => {
    const starved = cpuStarvation('compile', 1000, sample(0, 0, [[7, 900]]), sample(1000, 10, waits));
    if (reason === undefined) expect(starved).toBeUndefined();
    else expect(starved).toMatch(reason);
  });
});

// Each sandbox may use 5% of a core (its own cpu.cfs_quota_us), so that what it may use is known, and small.
const { executor } = useExecutor({ runCpuCores: 0.05 });

/** The cpu cgroup this process's executor made for all its sandboxes (cgroups.ts: `fusebox/<pid>-<random>`). */
function sandboxesCpuCgroup(): string {
  const root = '/sys/fs/cgroup/cpu/fusebox';
  const [name] = readdirSync(root).filter((entry) => entry.startsWith(`${process.pid}-`));
  if (name === undefined) throw new Error(`no cpu cgroup of process ${process.pid} under ${root}`);
  return join(root, name);
}

const slowCompile = () => executor().runCode({ code: SLOW_COMPILE, language: 'cpp', compile_timeout: 1 });

describe('a compile step that times out', () => {
  it('is Failed, the program’s own, when it had the CPU it may use, and nothing runs', async () => {
    const { response } = await slowCompile();
    expect(response.status).toBe('Failed');
    expect(response.message).toBe('');
    expect(response.compile_result).toMatchObject({ status: 'TimeLimitExceeded', return_code: null });
    expect(response.compile_result?.execution_time).toBeGreaterThanOrEqual(1);
    expect(response.run_result).toBeNull();
  });

  it('is a SandboxError naming the overload when the machine left it less than half of that', async () => {
    // A process spinning beside the sandboxes, with 256 times a sandbox's weight, and all of them held to what
    // one sandbox may use: the compiler is runnable all along and gets next to nothing. Nothing else slows.
    const parent = sandboxesCpuCgroup();
    const hogGroup = join(parent, 'test-hog');
    writeFileSync(join(parent, 'cpu.cfs_quota_us'), '5000');
    mkdirSync(hogGroup);
    const hog = spawn('python3', ['-c', 'while True: pass'], { stdio: 'ignore' });
    try {
      writeFileSync(join(hogGroup, 'cpu.shares'), '262144');
      writeFileSync(join(hogGroup, 'cgroup.procs'), String(hog.pid));
      const { response } = await slowCompile();
      expect(response.status).toBe('SandboxError');
      expect(response.message).toMatch(
        /^the compile step ran out of its 1 s for want of CPU: in the \d+ ms measured it got \d+ ms of the \d+ ms of CPU it may use, while one of its threads waited \d+ ms/,
      );
      expect(response.compile_result).toMatchObject({ status: 'TimeLimitExceeded', return_code: null });
    } finally {
      // Unthrottled first: the killed process must still run to exit.
      writeFileSync(join(parent, 'cpu.cfs_quota_us'), '-1');
      const exited = once(hog, 'exit');
      hog.kill('SIGKILL');
      await exited;
      // The kernel lets go of an ended process's cgroup a moment after it is reaped.
      await vi.waitFor(() => rmdirSync(hogGroup), { timeout: 10_000 });
    }
  });
});
