import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CpuSample, cpuStarvation } from '../src/cpu-starvation';
import { useExecutor } from './use-executor';

/** Constant evaluation g++ is busy with for minutes, on the CPU all along, before its operation limit ends it. */
const SLOW_COMPILE =
  'constexpr long f() { long s = 0; for (long i = 0; i < 200000; i++) for (long j = 0; j < 200000; j++) s += i ^ j; return s; }\n' +
  'int main() { constexpr long x = f(); return x & 1; }\n';

const sample = (usageMs: number, waits: [number, number][], allowedCores = 1): CpuSample => ({
  usageMs,
  waitsNs: new Map(waits),
  allowedCores,
});
const ms = 1e6;

describe('whether a step that ran out of time was starved of CPU', () => {
  it('says so when it got under half its CPU while waiting for one over half the time', () => {
    const reason = cpuStarvation('compile', 1000, sample(10, [[7, 0]]), sample(110, [[7, 800 * ms]]));
    expect(reason).toMatch(
      /^the compile step ran out of its 1 s for want of CPU: it got 100 ms of the 1000 ms it may use and waited 800 ms/,
    );
  });

  it('leaves a step that had its share, or that waited for no CPU, to its program', () => {
    // Busy on the CPU half the time: the program's own slowness.
    expect(cpuStarvation('compile', 1000, sample(0, []), sample(500, [[7, 500 * ms]]))).toBeUndefined();
    // Blocked on something of its own (no CPU used, none waited for).
    expect(cpuStarvation('compile', 1000, sample(0, [[7, 0]]), sample(1, [[7, 1 * ms]]))).toBeUndefined();
    // Held to a quota of 0.1 core and given it: the wait is the quota's.
    expect(
      cpuStarvation('compile', 1000, sample(0, [], 0.1), sample(100, [[7, 900 * ms]], 0.1)),
    ).toBeUndefined();
  });

  // Thread 7 had waited 400 ms before the step; a smaller count is a reused thread id, all of whose wait is new.
  it.each([
    ['400 ms more', [[7, 800]], undefined],
    [
      '400 ms more, and a new thread 200',
      [
        [7, 800],
        [8, 200],
      ],
      /waited 600 ms/,
    ],
    [
      'a reused id 300, and a new thread 300',
      [
        [7, 300],
        [8, 300],
      ],
      /waited 600 ms/,
    ],
  ] as const)('counts the wait of each thread from the first sample: %s', (_, waits, reason) => {
    const after = sample(
      10,
      waits.map(([thread, waitMs]) => [thread, waitMs * ms]),
    );
    const starved = cpuStarvation('compile', 1000, sample(0, [[7, 400 * ms]]), after);
    if (reason === undefined) expect(starved).toBeUndefined();
    else expect(starved).toMatch(reason);
  });
});

// Each sandbox may use a fifth of a core (its own cpu.cfs_quota_us), so that what it may use is known.
const { executor } = useExecutor({ concurrency: 4, runCpuCores: 0.2 });

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

  it('is a SandboxError naming the overload when other runs left it less than half of that', async () => {
    // All the sandboxes together held to what one may use, and three runs spinning beside the compile: it gets
    // about a quarter of its fifth of a core, runnable all along, waiting. Nothing outside this executor slows.
    const parent = sandboxesCpuCgroup();
    writeFileSync(join(parent, 'cpu.cfs_quota_us'), '20000');
    try {
      const spinning = Array.from({ length: 3 }, () =>
        executor().runCode({ code: 'while True: pass', language: 'python', run_timeout: 3 }),
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      const { response } = await slowCompile();
      expect(response.status).toBe('SandboxError');
      expect(response.message).toMatch(
        /^the compile step ran out of its 1 s for want of CPU: it got \d+ ms of the 200 ms it may use and waited \d+ ms/,
      );
      expect(response.compile_result).toMatchObject({ status: 'TimeLimitExceeded', return_code: null });
      for (const { response: spun } of await Promise.all(spinning))
        expect(spun.run_result?.status).toBe('TimeLimitExceeded');
    } finally {
      writeFileSync(join(parent, 'cpu.cfs_quota_us'), '-1');
    }
  });
});
