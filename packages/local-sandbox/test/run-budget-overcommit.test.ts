import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { type Executor, createExecutor } from '../src/executor';
import type { ExecutorOptions } from '../src/executor-options';

// Hostile probe (R2, open): admission counts a run at what it holds when it starts (at least runProcesses), but
// each run may grow to maxProcesses afterwards, and the sandboxes' parent cgroup holds the whole processBudget.
// Runs that fork to their cap after being admitted fill the budget, and a run admitted before them then cannot
// fork at all: it fails as its own program would (a non-zero exit and EAGAIN on stderr), not as a sandbox error.
// With the defaults, 16 runs at 512 fill 8192. Here the same at scale: 2 runs of at most 60 fill a budget of 120.

async function withExecutor(options: ExecutorOptions, body: (executor: Executor) => Promise<void>) {
  const executor = await createExecutor({
    warn: () => {},
    memoryHeadroomMB: 1,
    warmSandboxes: 1,
    ...options,
  });
  try {
    await body(executor);
  } finally {
    await executor.close();
  }
}

const LIMITS: ExecutorOptions = { processBudget: 120, runProcesses: 10, maxProcesses: 60, concurrency: 4 };

/** Takes every process the budget has left for 6 s: it starts threads, and tries again when one is refused. */
const bomb = [
  'import threading, time',
  'end = time.monotonic() + 6',
  'n = 0',
  'while time.monotonic() < end:',
  '    try:',
  '        threading.Thread(target=time.sleep, args=(end - time.monotonic(),), daemon=True).start()',
  '        n += 1',
  '    except RuntimeError:',
  '        time.sleep(0.001)',
  'print(n)',
].join('\n');

/** A run that forks nothing: it sleeps through the bombing and prints. */
const sleeper = 'import time\ntime.sleep(2.5)\nprint("ok")';

/** An honest program: it sleeps, then runs five short child processes, as a test runner or a compiler would. */
const honest = [
  'import subprocess, time',
  'time.sleep(2.5)',
  'for _ in range(5):',
  '    subprocess.run(["true"], check=True)',
  'print("ok")',
].join('\n');

describe('runs that fork to their cap after admission (process budget overcommit)', () => {
  it('control: alone, the honest run forks and succeeds under the same limits', async () => {
    await withExecutor(LIMITS, async (executor) => {
      const { response } = await executor.runCode({ code: honest, language: 'python' });
      expect(response.status).toBe('Success');
      expect(response.run_result?.stdout).toBe('ok\n');
    });
  });

  it('a full budget does not end the spawner: a run that forks nothing lives through the bombing', async () => {
    // The spawner lives in the sandboxes' parent cgroup; it unmounted each ended sandbox's tmpfs on a new thread,
    // and a thread refused there ended it and every sandbox with it: all running runs came back Failed 137.
    await withExecutor(LIMITS, async (executor) => {
      const victim = executor.runCode({ code: sleeper, language: 'python' });
      await sleep(100);
      const bombers = [0, 1, 2].map(() => executor.runCode({ code: bomb, language: 'python' }));
      // Short runs end (and unmount) while the budget is full.
      const short = [0, 1, 2].map(async (index) => {
        await sleep(800 + index * 300);
        return executor.runCode({ code: 'print(1)', language: 'python' });
      });
      const { response } = await victim;
      const bombed = await Promise.all(bombers);
      await Promise.allSettled(short);
      // The bombers took the budget (detection: they count what they got).
      expect(
        bombed.map(({ response: r }) => Number(r.run_result?.stdout)).reduce((a, b) => a + b, 0),
      ).toBeGreaterThan(80);
      expect(response.status).toBe('Success');
      expect(response.run_result?.stdout).toBe('ok\n');
    });
  });

  // Evidence of an open hole, run on demand (FUSEBOX_OPEN_HOLE_PROBES=1): it asserts the hole's presence and
  // depends on the bombers filling the budget before the honest run forks, so the suite does not run it.
  it.runIf(process.env.FUSEBOX_OPEN_HOLE_PROBES === '1')(
    'OPEN HOLE: bombers admitted beside an honest run fill the budget, and its forks fail as its own error',
    async () => {
      await withExecutor(LIMITS, async (executor) => {
        const victim = executor.runCode({ code: honest, language: 'python' });
        await sleep(100);
        const bombers = [0, 1, 2].map(() => executor.runCode({ code: bomb, language: 'python' }));
        const { response } = await victim;
        const counts = (await Promise.all(bombers)).map(({ response: r }) => Number(r.run_result?.stdout));
        // The bombers were admitted (each counted at 10 when it started) and together took the whole budget.
        expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThan(80);
        // The honest run is reported as its own failure: status Failed, exit 1, EAGAIN from fork. A fix (admission
        // that reserves what a run may grow to, or per-run caps that sum within the budget) turns this into
        // Success, and this assertion must then be inverted.
        expect(response.status).toBe('Failed');
        expect(response.run_result?.return_code).toBe(1);
        expect(response.run_result?.stderr).toMatch(/BlockingIOError|Resource temporarily unavailable/);
      });
    },
  );
});
