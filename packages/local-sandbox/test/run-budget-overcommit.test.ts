import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { type Executor, createExecutor } from '../src/executor';
import type { ExecutorOptions } from '../src/executor-options';

// Hostile probe (R2): admission counts a run at what it holds when it starts (at least runProcesses), but each run
// may grow to maxProcesses afterwards, and the sandboxes' parent cgroup holds the whole processBudget. Runs that
// fork to their cap after being admitted fill the budget, and a run admitted before them then cannot fork at all.
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

/** Takes every process the budget has left for 8 s: it starts threads, and tries again when one is refused. */
const bomb = [
  'import threading, time',
  'end = time.monotonic() + 8',
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

/**
 * An honest program: it sleeps (long enough for bombers started beside it to fill the budget, even on a loaded
 * machine), then runs five short child processes, as a test runner or a compiler would.
 */
const honest = [
  'import subprocess, time',
  'time.sleep(4)',
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
      // Settled as they are made: one that cannot start while the budget is full rejects before it is awaited.
      const short = Promise.allSettled(
        [0, 1, 2].map(async (index) => {
          await sleep(800 + index * 300);
          return executor.runCode({ code: 'print(1)', language: 'python' });
        }),
      );
      const { response } = await victim;
      const bombed = await Promise.all(bombers);
      await short;
      // The bombers took the budget (detection: they count what they got).
      expect(
        bombed.map(({ response: r }) => Number(r.run_result?.stdout)).reduce((a, b) => a + b, 0),
      ).toBeGreaterThan(80);
      expect(response.status).toBe('Success');
      expect(response.run_result?.stdout).toBe('ok\n');
    });
  });

  it('a run whose forks the full budget refused is a sandbox error, not its program failing', async () => {
    // Before, the honest run came back Failed, exit 1, with BlockingIOError: a reward scored its program by what
    // its neighbours did. Admission still overcommits (runs are counted by what they hold), but the kernel says
    // which level refused the fork, and such a run is reported as starved, never as its program's failure.
    await withExecutor(LIMITS, async (executor) => {
      const victim = executor.runCode({ code: honest, language: 'python' });
      await sleep(100);
      const bombers = [0, 1, 2].map(() => executor.runCode({ code: bomb, language: 'python' }));
      const { response } = await victim;
      const bombed = (await Promise.all(bombers)).map(({ response: r }) => r);
      const counts = bombed.map((r) => Number(r.run_result?.stdout));
      // The bombers were admitted (each counted at 10 when it started) and together took the whole budget.
      expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThan(80);
      // A bomber refused while it held more than its share (120 over 4 runs) filled the budget itself: its
      // program's outcome stands (it caught the refusals and printed its count).
      for (const [index, r] of bombed.entries()) {
        if ((counts[index] ?? 0) > 30) expect(r.status).toBe('Success');
      }
      expect(bombed.some((r, index) => (counts[index] ?? 0) > 30)).toBe(true);
      expect(response.status).toBe('SandboxError');
      expect(response.message).toMatch(
        /shared process budget was full: the kernel refused this run \d+ fork/,
      );
      // What it printed is kept, for whoever looks into it.
      expect(response.run_result?.stderr).toMatch(/BlockingIOError|Resource temporarily unavailable/);
    });
  });
});

describe('Jupyter cells whose forks the full budget refused', () => {
  const waits = 'import os, subprocess, time\ntime.sleep(4)';
  /** Forks; a refused fork raises in the cell, which Jupyter reports as the cell's error. */
  const forks = 'for _ in range(5):\n    subprocess.run(["true"], check=True)\nprint("ok")';
  /** The same, but a refused fork ends the interpreter: the request fails, as a program that exits would. */
  const forksOrExits = `try:\n${forks.replaceAll(/^/gm, '    ')}\nexcept OSError:\n    os._exit(3)`;

  it('fail the request as a sandbox error; cells that only raised keep its Success', async () => {
    await withExecutor(LIMITS, async (executor) => {
      for (const cells of [
        [waits, forks],
        [waits, forksOrExits],
      ]) {
        const alone = await executor.runJupyter({ cells });
        expect(alone.response.status).toBe('Success');
        expect(alone.response.cells[1]?.stdout).toBe('ok\n');
      }

      const raising = executor.runJupyter({ cells: [waits, forks] });
      const exiting = executor.runJupyter({ cells: [waits, forksOrExits] });
      await sleep(100);
      const bombers = [0, 1, 2].map(() => executor.runCode({ code: bomb, language: 'python' }));
      const [{ response: raised }, { response: exited }] = await Promise.all([raising, exiting]);
      const counts = (await Promise.all(bombers)).map(({ response: r }) => Number(r.run_result?.stdout));
      // Detection: the bombers took the budget, and the raising cell saw its fork refused.
      expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThan(80);
      expect(JSON.stringify(raised.cells[1]?.error)).toMatch(
        /BlockingIOError|Resource temporarily unavailable/,
      );
      expect(raised.status).toBe('Success');
      expect(exited.status).toBe('SandboxError');
      expect(exited.message).toMatch(/shared process budget was full/);
    });
  });
});

describe('an interpreter session starved in one cell', () => {
  /** Retries a refused fork until one goes through: how many were refused. */
  const retryFork = [
    'refused = 0',
    'for _ in range(400):',
    '    try:',
    '        subprocess.run(["true"], check=True)',
    '        break',
    '    except OSError:',
    '        refused += 1',
    '        time.sleep(0.02)',
  ].join('\n');

  it('says so of a cell that died for it', async () => {
    await withExecutor(LIMITS, async (executor) => {
      const { id } = await executor.sessions.create();
      await executor.sessions.run(id, 'import os, subprocess, time');
      const starvedCell = executor.sessions.run(
        id,
        'time.sleep(4)\ntry:\n    subprocess.run(["true"], check=True)\nexcept OSError:\n    os._exit(3)',
      );
      await sleep(100);
      const bombers = [0, 1, 2].map(() => executor.runCode({ code: bomb, language: 'python' }));
      const cell = await starvedCell;
      const counts = (await Promise.all(bombers)).map(({ response: r }) => Number(r.run_result?.stdout));
      expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThan(80);
      expect(cell.status).toBe('died');
      expect(cell.starved).toMatch(/shared process budget was full/);
      executor.sessions.close(id);
    });
  });

  it('never excuses a cell that raised, even after a fork refused for the full budget', async () => {
    // Found by an attack on the first version: a cell that saw its fork refused, retried until it went through,
    // then raised on purpose was reported starved, so a policy could pick when its failures were the sandbox's.
    await withExecutor(LIMITS, async (executor) => {
      const { id } = await executor.sessions.create();
      await executor.sessions.run(id, 'import os, subprocess, time');
      const raising = executor.sessions.run(
        id,
        `time.sleep(4)\n${retryFork}\nprint("refused", refused)\nraise ValueError("wrong answer")`,
      );
      await sleep(100);
      const bombers = [0, 1, 2].map(() => executor.runCode({ code: bomb, language: 'python' }));
      const cell = await raising;
      await Promise.all(bombers);
      // Detection: its forks were refused while the bombers held the budget.
      expect(Number(/refused (\d+)/.exec(cell.stdout)?.[1])).toBeGreaterThan(0);
      expect(cell.status).toBe('error');
      expect(cell.starved).toBeUndefined();
      // The interpreter and its state are still there.
      const alive = await executor.sessions.run(id, 'print(subprocess.__name__)');
      expect(alive.stdout).toBe('subprocess\n');
      // The sandbox's counters still hold those refusals, but a later cell that dies alone is judged on what
      // happened while it ran: its death is its own.
      const later = await executor.sessions.run(id, 'os._exit(3)');
      expect(later.status).toBe('died');
      expect(later.starved).toBeUndefined();
      executor.sessions.close(id);
    });
  });
});

describe('a lone run in a budget smaller than its own cap', () => {
  it('fills the budget itself: its fork bomb is its own failure, not a sandbox error', async () => {
    // Found in review: with one run at a time its share was the whole budget, so a lone bomb the parent refused
    // (beside only idle sandboxes) read as starved by "other runs".
    await withExecutor(
      { concurrency: 1, processBudget: 24, maxProcesses: 64, runProcesses: 4, pythonZygote: false },
      async (executor) => {
        const { response } = await executor.runCode({
          code: 'import os, time\nwhile True:\n    if os.fork() == 0:\n        time.sleep(30)\n        os._exit(0)',
          language: 'python',
        });
        expect(response.status).toBe('Failed');
        expect(response.run_result?.stderr).toMatch(/BlockingIOError|Resource temporarily unavailable/);
      },
    );
  });
});

describe('runs that grow past the memory budget together', () => {
  // A memory budget of 400 MB for all sandboxes, and 350 MB for each: two runs that each fit alone do not fit
  // together, and the kernel's OOM killer then takes the larger, whichever of them grew last.
  const MEMORY: ExecutorOptions = {
    memoryBudgetMB: 400,
    memoryCapMB: 350,
    runMemoryMB: 16,
    concurrency: 4,
    pythonZygote: false,
  };
  const holder = (mb: number, seconds: number) =>
    `import time\nx = bytearray(${mb} * 1024 * 1024)\nfor i in range(0, len(x), 4096): x[i] = 1\ntime.sleep(${seconds})\nprint("ok")`;

  it('a run the OOM killer took for the shared budget while it held past its share is its own failure', async () => {
    // Its share is 400 / 4 = 100 MB. The OOM killer takes the largest run, so a run it took for the shared
    // budget held more than its share (unless memory outside the runs filled the budget: starved-by-shared-
    // budget.test.ts): such a run is one of those that filled it, and a policy cannot turn a failure into a
    // sandbox error by ballooning.
    await withExecutor(MEMORY, async (executor) => {
      const victim = executor.runCode({ code: holder(250, 5), language: 'python' });
      await sleep(2000);
      const grower = executor.runCode({ code: holder(300, 1), language: 'python' });
      const [{ response: killed }, { response: grown }] = await Promise.all([victim, grower]);
      expect(killed.status).toBe('Failed');
      expect(killed.run_result?.return_code).toBe(137);
      // Detection: the grower lived, so the kernel took the victim for the budget, not for its own cap.
      expect(grown.status).toBe('Success');
      // Alone past its own cap: the model's doing, as before.
      const { response: greedy } = await executor.runCode({ code: holder(380, 1), language: 'python' });
      expect(greedy.status).toBe('Failed');
      expect(greedy.run_result?.return_code).toBe(137);
    });
  });
});
