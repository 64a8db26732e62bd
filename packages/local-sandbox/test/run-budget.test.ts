import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { QueueFullError } from '../src/errors/queue-full-error';
import { type Executor, createExecutor } from '../src/executor';
import type { ExecutorOptions } from '../src/executor-options';
import { descendsFrom, forkedPython } from './zygote-helpers';

// Runs are admitted by what they really use of a memory and process budget, not by a count of cores; the
// sandboxes' parent cgroup holds the same budget, each run gets an equal CPU weight of its own, and a run waits
// in the queue at most queueTimeoutMs, then is refused with a message that says how long and why.

const MB = 1024 * 1024;

/** Waits until `condition` holds, checking every 20 ms, for at most 20 s. */
async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > 20_000) throw new Error('the condition never held');
    await sleep(20);
  }
}

async function withExecutor(options: ExecutorOptions, body: (executor: Executor) => Promise<void>) {
  const executor = await createExecutor({ warn: () => {}, memoryHeadroomMB: 1, ...options });
  try {
    await body(executor);
  } finally {
    await executor.close();
  }
}

/** Polls `stats().running` every 20 ms until `done` settles; the most seen at once. */
async function mostRunning(executor: Executor, done: Promise<unknown>): Promise<number> {
  let settled = false;
  void done.finally(() => (settled = true)).catch(() => {});
  let most = 0;
  while (!settled) {
    most = Math.max(most, executor.stats().running);
    await sleep(20);
  }
  return most;
}

/** Holds 600 MB it has written to (bytes the kernel must really back) for 2 s. */
const hog600 = 'block = bytearray(b"x") * (600 * 1024 * 1024)\nimport time\ntime.sleep(2)';

/** Code that names its own process `marker` (so the host can find it) and sleeps. */
const marked = (marker: string, seconds: number) =>
  `open("/proc/self/comm", "w").write(${JSON.stringify(marker)})\nimport time\ntime.sleep(${seconds})`;

/** The host pid of this test process's sandboxed process named `marker`, once it shows. */
async function pidNamed(marker: string): Promise<number> {
  let found: number | undefined;
  await until(() => {
    found = readdirSync('/proc')
      .filter((pid) => /^\d+$/.test(pid))
      .map(Number)
      .find((pid) => {
        try {
          return (
            readFileSync(`/proc/${pid}/comm`, 'utf8') === `${marker}\n` && descendsFrom(pid, process.pid)
          );
        } catch {
          return false;
        }
      });
    return found !== undefined;
  });
  return found!;
}

/** The host cgroup directory of `pid` in the v1 hierarchy of `controller`. */
function cgroupDir(pid: number, controller: string): string {
  const line = readFileSync(`/proc/${pid}/cgroup`, 'utf8')
    .split('\n')
    .find((entry) => entry.split(':')[1]?.split(',').includes(controller));
  return join('/sys/fs/cgroup', controller, line!.split(':')[2]!);
}

const read = (path: string) => readFileSync(path, 'utf8').trim();

describe('admission by budget', () => {
  it('admits as many runs as the memory budget holds at their minimum, far more than the cores, and queues the rest', async () => {
    // Budget 1000 MB, each run counts at least 100 MB: at most 10 at once, on a machine of 2 cores.
    await withExecutor({ memoryBudgetMB: 1000, runMemoryMB: 100 }, async (executor) => {
      const runs = Promise.all(
        Array.from({ length: 14 }, () =>
          executor.runCode({ code: 'import time; time.sleep(1.5)', language: 'python' }),
        ),
      );
      const most = await mostRunning(executor, runs);
      const results = await runs;
      expect(results.map((result) => result.response.status)).toEqual(Array(14).fill('Success'));
      expect(most).toBeGreaterThan(2);
      expect(most).toBeLessThanOrEqual(10);
      // The ones that queued started only once earlier ones had finished.
      const waited = results.filter((result) => result.timing.queueWaitMs > 500);
      expect(waited.length).toBeGreaterThan(0);
    });
  });

  it('counts what the running sandboxes really hold: a run that fills the budget keeps the next one waiting', async () => {
    // The hog is admitted (at least 200 MB counted), then holds 600 MB: 200 more would pass the 800 MB budget.
    await withExecutor({ memoryBudgetMB: 800, runMemoryMB: 200, memoryCapMB: 800 }, async (executor) => {
      const hog = executor.runCode({ code: hog600, language: 'python' });
      await until(() => (executor.stats().sandboxMemoryMB ?? 0) > 600);
      const small = executor.runCode({ code: 'print(1)', language: 'python' });
      await sleep(50);
      // Counted at its minimum alone (200 MB), the hog would leave room for the small run at once.
      expect(executor.stats()).toMatchObject({ running: 1, waiting: 1 });
      expect((await hog).response.status).toBe('Success');
      expect((await small).response.status).toBe('Success');
    });
  });

  it('refuses a run that waited queueTimeoutMs with a message that says how long and what was short', async () => {
    await withExecutor(
      { memoryBudgetMB: 800, runMemoryMB: 200, memoryCapMB: 800, queueTimeoutMs: 700 },
      async (executor) => {
        const hog = executor.runCode({ code: hog600, language: 'python' });
        await until(() => (executor.stats().sandboxMemoryMB ?? 0) > 600);
        const refused = await executor
          .runCode({ code: 'print(1)', language: 'python' })
          .catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(QueueFullError);
        expect((refused as QueueFullError).message).toMatch(
          /waited \d+\.\d s for room to run \(memory: \d+ MB with one more run, over the budget of 800 MB/,
        );
        expect((refused as QueueFullError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
        expect((await hog).response.status).toBe('Success');
      },
    );
  });

  it('counts processes too: runs that hold many keep others waiting until the process budget has room', async () => {
    // The first is admitted (at least 40 counted) and then holds 70 threads: with the warm sandboxes' processes,
    // 40 more would pass the budget of 120; counted at their minimum alone (40 + 40), both would fit.
    await withExecutor({ processBudget: 120, runProcesses: 40, maxProcesses: 100 }, async (executor) => {
      const threads =
        'import threading, time\nfor _ in range(70): threading.Thread(target=time.sleep, args=(1.5,)).start()';
      const first = executor.runCode({ code: threads, language: 'python' });
      await until(() => (executor.stats().sandboxProcesses ?? 0) > 80);
      // The second holds fewer: the first's threads may still be leaving the parent cgroup (whose pids.max is the
      // same budget) when it starts, and 70 more then failed to start in the fresh-clone run.
      const second = executor.runCode({ code: threads.replace('70', '20'), language: 'python' });
      await sleep(50);
      expect(executor.stats()).toMatchObject({ running: 1, waiting: 1 });
      expect((await first).response.status).toBe('Success');
      expect((await second).response.status).toBe('Success');
    });
  });

  it('refuses a budget no run could ever fit with a TypeError naming both options', async () => {
    await expect(createExecutor({ memoryBudgetMB: 100, runMemoryMB: 200 })).rejects.toThrow(
      /runMemoryMB \(200\) to be at most memoryBudgetMB \(100\)/,
    );
  });
});

describe('cgroups of the budget and of the CPU', () => {
  it('put each run in its own cpu cgroup of equal weight, under a parent that holds the budget', async () => {
    await withExecutor(
      {
        memoryBudgetMB: 3000,
        processBudget: 5000,
        cpuShares: 512,
        runCpuCores: 0.5,
        pythonZygote: true,
        pythonZygotes: 1,
      },
      async (executor) => {
        for (const [path, marker] of [
          ['forked', 'fuseboxcpuf'],
          ['cold', 'fuseboxcpuc'],
        ] as const) {
          const run =
            path === 'forked'
              ? forkedPython(executor, marked(marker, 3))
              : executor.runCode({ code: marked(marker, 3), language: 'python', fetch_files: ['x'] });
          const pid = await pidNamed(marker);
          const cpu = cgroupDir(pid, 'cpu');
          expect(cpu).toMatch(/\/cpu\/fusebox\/[^/]+\/sandbox-\d+$/);
          expect(read(join(cpu, 'cpu.shares'))).toBe('1024');
          expect(read(join(cpu, 'cpu.cfs_quota_us'))).toBe('50000');
          expect(read(join(dirname(cpu), 'cpu.shares'))).toBe('512');
          const memory = dirname(cgroupDir(pid, 'memory'));
          expect(Number(read(join(memory, 'memory.limit_in_bytes')))).toBe(3000 * MB);
          expect(read(join(dirname(cgroupDir(pid, 'pids')), 'pids.max'))).toBe('5000');
          // The run is the OOM killer's first choice when the budget runs out, before any zygote.
          expect(read(`/proc/${pid}/oom_score_adj`)).toBe('1000');
          expect((await run).response.status).toBe('Success');
        }
      },
    );
  });
});
