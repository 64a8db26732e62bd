import { describe, expect, it, vi } from 'vitest';
import type { Executor } from '../src/executor';
import { useExecutor } from './use-executor';

// A Python run that finds no zygote idle waits `pythonZygoteWaitMs` for one to come back before it goes cold
// (issue 16: at c=16 on 2 cores, 4 zygotes and no wait sent a third of print(1) runs down the cold path). One
// zygote and four slots in each executor, so runs outnumber zygotes; they differ only in the wait.
const patient = useExecutor({
  concurrency: 4,
  pythonZygote: true,
  pythonZygotes: 1,
  pythonZygoteWaitMs: 60_000,
});
const hasty = useExecutor({ concurrency: 4, pythonZygote: true, pythonZygotes: 1, pythonZygoteWaitMs: 0 });
const brief = useExecutor({ concurrency: 4, pythonZygote: true, pythonZygotes: 1, pythonZygoteWaitMs: 200 });

const python = (executor: Executor, code: string, signal?: AbortSignal) =>
  executor.runCode({ code, language: 'python' }, { signal });

/** Runs `count` short runs at once on `executor` (its zygote ready first), and how many of them were forked. */
async function forkedOf(executor: Executor, count: number): Promise<number> {
  await vi.waitFor(() => expect(executor.stats().idleZygotes).toBe(1), { timeout: 30_000, interval: 50 });
  const before = executor.stats().forkedRuns;
  const answers = await Promise.all(
    Array.from({ length: count }, () => python(executor, 'import time\ntime.sleep(0.3)\nprint(1)')),
  );
  for (const { response } of answers)
    expect(response).toMatchObject({ status: 'Success', run_result: { stdout: '1\n' } });
  return executor.stats().forkedRuns - before;
}

describe('a Python run that finds no zygote idle', () => {
  it('waits for one to come back, so four runs at once all fork from the one zygote', async () => {
    expect(await forkedOf(patient.executor(), 4)).toBe(4);
  });

  it('goes cold at once without a wait (control: the runs did overlap)', async () => {
    expect(await forkedOf(hasty.executor(), 4)).toBe(1);
  });

  it('goes cold once the wait is over, while a sleeping run keeps the zygote', async () => {
    const executor = brief.executor();
    await vi.waitFor(() => expect(executor.stats().idleZygotes).toBe(1), { timeout: 30_000, interval: 50 });
    const before = executor.stats().forkedRuns;
    const finished: string[] = [];
    const sleeper = python(executor, 'import time\ntime.sleep(5)\nprint("slept")').then((answer) => {
      finished.push('sleeper');
      return answer;
    });
    await vi.waitFor(() => expect(executor.stats().forkedRuns).toBe(before + 1), {
      timeout: 30_000,
      interval: 20,
    });
    const short = await python(executor, 'print(2)');
    finished.push('short');
    expect(short.response).toMatchObject({ status: 'Success', run_result: { stdout: '2\n' } });
    // The short run went cold (no second fork) and answered while the sleeper still held the zygote.
    expect(executor.stats().forkedRuns).toBe(before + 1);
    expect(finished).toEqual(['short']);
    expect((await sleeper).response).toMatchObject({ status: 'Success', run_result: { stdout: 'slept\n' } });
  }, 60_000);
  it('stops waiting when aborted: the run neither forks later nor answers as if it ran', async () => {
    const executor = patient.executor();
    await vi.waitFor(() => expect(executor.stats().idleZygotes).toBe(1), { timeout: 30_000, interval: 50 });
    const before = executor.stats().forkedRuns;
    // Control: a run aborted while it runs forked is killed and rejects with the abort's reason.
    const control = new AbortController();
    const running = python(executor, 'import time\ntime.sleep(5)\nprint("ran")', control.signal);
    await vi.waitFor(() => expect(executor.stats().forkedRuns).toBe(before + 1), {
      timeout: 30_000,
      interval: 20,
    });
    control.abort(new Error('client gone'));
    await expect(running).rejects.toThrow('client gone');
    // The probe: a sleeper holds the zygote, a second run waits for it and is aborted while it waits.
    await vi.waitFor(() => expect(executor.stats().idleZygotes).toBe(1), { timeout: 30_000, interval: 50 });
    const sleeper = python(executor, 'import time\ntime.sleep(1)\nprint("slept")');
    await vi.waitFor(() => expect(executor.stats().forkedRuns).toBe(before + 2), {
      timeout: 30_000,
      interval: 20,
    });
    const waiting = new AbortController();
    const waiter = python(executor, 'print("ran after its abort")', waiting.signal);
    await new Promise((resolve) => setTimeout(resolve, 100));
    waiting.abort(new Error('client gone'));
    await expect(waiter).rejects.toThrow('client gone');
    expect((await sleeper).response).toMatchObject({ status: 'Success', run_result: { stdout: 'slept\n' } });
    // It never forked once the zygote came back.
    expect(executor.stats().forkedRuns).toBe(before + 2);
  }, 60_000);
  it('gets the zygote of a run that timed out, forked from it again, with nothing of that run left', async () => {
    const executor = patient.executor();
    await vi.waitFor(() => expect(executor.stats().idleZygotes).toBe(1), { timeout: 30_000, interval: 50 });
    // Control: the check sees a file and a module attribute its own run left.
    const control = await python(
      executor,
      'import json, os\nopen("/tmp/left", "w").write("x")\njson.LEFT = 1\nprint(os.path.exists("/tmp/left"), hasattr(json, "LEFT"))',
    );
    expect(control.response.run_result?.stdout).toBe('True True\n');
    await vi.waitFor(() => expect(executor.stats().idleZygotes).toBe(1), { timeout: 30_000, interval: 50 });
    const before = executor.stats().forkedRuns;
    // It leaves a file and a module attribute behind, then overruns its timeout and is killed.
    const overrun = executor.runCode({
      code: 'import json, time\nopen("/tmp/left", "w").write("x")\njson.LEFT = 1\ntime.sleep(30)',
      language: 'python',
      run_timeout: 1,
    });
    await vi.waitFor(() => expect(executor.stats().forkedRuns).toBe(before + 1), {
      timeout: 30_000,
      interval: 20,
    });
    const waiter = python(
      executor,
      'import json, os\nprint(os.path.exists("/tmp/left"), hasattr(json, "LEFT"))',
    );
    expect((await overrun).response.run_result?.status).toBe('TimeLimitExceeded');
    expect((await waiter).response).toMatchObject({
      status: 'Success',
      run_result: { stdout: 'False False\n' },
    });
    // The waiter forked (from the same zygote, the only one) rather than going cold.
    expect(executor.stats().forkedRuns).toBe(before + 2);
  }, 60_000);
});
