import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ExecutorClosedError } from '../src/errors/executor-closed-error';
import { QueueFullError } from '../src/errors/queue-full-error';
import { createExecutor } from '../src/executor';
import { resolveExecutorOptions } from '../src/executor-options';
import { RUN_INIT } from '../src/runtime-profiles';

const sleepy = (seconds: number, runTimeout: number) => ({
  code: `import time\ntime.sleep(${seconds})\nprint("done")`,
  language: 'python' as const,
  run_timeout: runTimeout,
});

/** Temporary directories and sandbox processes of executors in this process (test files run in parallel). */
const ourTempDirs = () =>
  readdirSync(tmpdir()).filter(
    (name) =>
      name.startsWith(`fusebox-sandbox-${process.pid}-`) || name.startsWith(`fusebox-run-${process.pid}-`),
  );
/** Sandboxes (their bubblewrap arguments name the executor's runtime directory) and the executor's spawner. */
const ourProcesses = () =>
  [
    ['-f', `fusebox-sandbox-${process.pid}-`],
    ['-P', String(process.pid), '-x', 'python3'],
  ].flatMap((args) => {
    try {
      return execFileSync('pgrep', args, { encoding: 'utf8' }).split('\n').filter(Boolean);
    } catch {
      return [];
    }
  });

describe('executor', () => {
  it('runs at most `concurrency` executions at once; the rest wait in order, and waiting does not count against run_timeout', async () => {
    const executor = await createExecutor({ concurrency: 1, warn: () => {} });
    try {
      const runs = [1, 2, 3].map(() => executor.runCode(sleepy(0.6, 1.5)));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(executor.stats()).toMatchObject({ running: 1, waiting: 2 });
      const results = await Promise.all(runs);
      // Each waited for the ones before it (about 0.6 s apiece) yet none timed out.
      expect(results.map((result) => result.response.status)).toEqual(['Success', 'Success', 'Success']);
      const started = results.map((result) => result.timing.acquiredAt.getTime());
      expect(started).toEqual([...started].sort((a, b) => a - b));
      expect(results[2]!.timing.queueWaitMs).toBeGreaterThan(1_000);
    } finally {
      await executor.close();
    }
  });

  it('refuses work beyond the queue bound with QueueFullError', async () => {
    const executor = await createExecutor({ concurrency: 1, queueLimit: 1, warn: () => {} });
    try {
      const running = executor.runCode(sleepy(0.5, 5));
      const queued = executor.runCode(sleepy(0, 5));
      await new Promise((resolve) => setTimeout(resolve, 100));
      await expect(executor.runCode(sleepy(0, 5))).rejects.toBeInstanceOf(QueueFullError);
      expect((await running).response.status).toBe('Success');
      expect((await queued).response.status).toBe('Success');
    } finally {
      await executor.close();
    }
  });

  it('on close, kills what runs, rejects what waits, and leaves no sandbox, cgroup or temporary directory', async () => {
    const executor = await createExecutor({ concurrency: 1, warn: () => {} });
    const ours = () =>
      readdirSync('/sys/fs/cgroup/pids/fusebox').filter((name) => name.startsWith(`${process.pid}-`));
    expect(ours()).toHaveLength(1);
    // Warm sandboxes start in the background, at low priority: on a loaded machine they take a moment.
    await vi.waitFor(() => expect(ourProcesses().length).toBeGreaterThan(1), {
      timeout: 30_000,
      interval: 50,
    });
    const running = executor.runCode(sleepy(30, 60)).catch((error: unknown) => error);
    const waiting = executor.runCode(sleepy(0, 60)).catch((error: unknown) => error);
    const session = await executor.sessions.create();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await executor.close();
    expect(await running).toBeInstanceOf(ExecutorClosedError);
    expect(await waiting).toBeInstanceOf(ExecutorClosedError);
    expect(() => executor.sessions.info(session.id)).toThrow();
    expect(ours()).toEqual([]);
    expect(ourTempDirs()).toEqual([]);
    expect(ourProcesses()).toEqual([]);
  });

  it('runs many executions at once without piling listeners on one shared signal', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    const executor = await createExecutor({ concurrency: 16, warn: () => {} });
    try {
      // bash: a cold run (python's are forked from its zygote, which starts them one after another).
      const sleepyBash = { code: 'sleep 0.3; echo done', language: 'bash' as const, run_timeout: 10 };
      const results = await Promise.all(Array.from({ length: 16 }, () => executor.runCode(sleepyBash)));
      expect(results.map((result) => result.response.status)).toEqual(Array(16).fill('Success'));
    } finally {
      await executor.close();
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('validates its options up front', async () => {
    await expect(createExecutor({ concurrency: 0 })).rejects.toThrow(
      new TypeError('expected concurrency to be an integer of at least 1, got 0'),
    );
    await expect(createExecutor({ isolation: 'docker' as 'none' })).rejects.toThrow(TypeError);
    await expect(createExecutor({ outputLimitBytes: 1.5 })).rejects.toThrow(/outputLimitBytes/);
  });

  it('takes as run-init only a file under /usr that its zygotes may execute, not read, and only root may change', () => {
    const directory = `/usr/local/lib/fusebox-test-run-init-${process.pid}`;
    const copy = join(directory, 'run-init');
    mkdirSync(directory, { mode: 0o755 });
    try {
      copyFileSync(RUN_INIT, copy);
      const asked = (path: string | null) =>
        resolveExecutorOptions({ pythonZygote: true, pythonRunInit: path }).pythonRunInit;
      chmodSync(copy, 0o711);
      expect(asked(copy)).toBe(copy);
      expect(asked(null)).toBeNull();
      chmodSync(copy, 0o755); // readable: /proc/1's files would be the zygote uid's, hence the program's
      expect(() => asked(copy)).toThrow(/is not mode 0711/);
      chmodSync(copy, 0o731);
      expect(() => asked(copy)).toThrow(/only root may change/);
      expect(() => asked('/tmp/run-init')).toThrow(/is not under \/usr/);
      expect(() => asked(`${directory}/missing`)).toThrow(/does not exist/);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('runs code without isolation only when told to, and warns loudly', async () => {
    const warnings: string[] = [];
    const executor = await createExecutor({
      isolation: 'none',
      concurrency: 1,
      warn: (message) => warnings.push(message),
    });
    try {
      expect(warnings.join('\n')).toContain('ISOLATION IS OFF');
      const { response } = await executor.runCode({
        code: 'import os\nprint(os.getcwd().startswith("/tmp/"), open("in.txt").read())',
        language: 'python',
        files: { 'in.txt': Buffer.from('x').toString('base64') },
      });
      expect(response.run_result?.stdout).toBe('True x\n');
    } finally {
      await executor.close();
    }
  });
});
