import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// apps/api/bin/pid1-init.py, the init `fusebox` re-runs itself under when it is pid 1, on its own: a new pid
// namespace (unshare, so root) whose pid 1 is a shell, as a container's would be fusebox.
const ROOT = process.getuid?.() === 0;
const INIT = fileURLToPath(new URL('../../bin/pid1-init.py', import.meta.url));
const run = promisify(execFile);

/** Runs `script` under the init in a fresh pid namespace; what the init exited with, or a kill at `timeoutMs`. */
async function underInit(script: string, timeoutMs: number): Promise<{ code: number | null }> {
  const outer = `python3 ${INIT} /bin/bash -c '${script}'; echo "init exited $?"`;
  try {
    const { stdout } = await run('unshare', ['-fp', '--mount-proc', 'bash', '-c', outer], {
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    });
    return { code: Number(/init exited (\d+)/.exec(stdout)?.[1]) };
  } catch {
    return { code: null };
  }
}

describe.runIf(ROOT)('the pid 1 init', () => {
  it('exits with the command’s status once the command is done (the control)', async () => {
    expect((await underInit('exit 3', 20_000)).code).toBe(3);
  });

  it('kills the grandchildren of orphans it killed, rather than waiting on them for ever', async () => {
    // The command leaves an orphan (bash) with a child of its own (sleep): the init kills the orphan, its
    // sleep is handed to the init as the orphan dies, and must be killed too. Before, the init waited for it.
    const result = await underInit('bash -c "sleep 300 & wait" & sleep 0.5; exit 3', 60_000);
    expect(result.code).toBe(3);
  });
});

// Hostile review of f4c4dbc: stop signals that keep arriving while the command exits and the init shuts down
// (a runtime that repeats SIGTERM). The init must still exit with the command's status, and never signal the
// command's pid once it is reaped (it may be another process's by then).
/** Exit codes of `rounds` inits whose command ignores SIGTERM and exits 3, each sent SIGTERM `storm`ily. */
async function exitCodes(rounds: number, storm: boolean): Promise<number[]> {
  const signals = storm ? 'while kill -TERM $p 2>/dev/null; do :; done' : 'kill -TERM $p';
  const outer = `for i in $(seq 1 ${rounds}); do
    python3 ${INIT} /bin/bash -c 'trap "" TERM; sleep 2; exit 3' 2>/dev/null & p=$!
    sleep 1.2; ${signals}; wait $p; echo "init exited $?"
  done`;
  const { stdout } = await run('unshare', ['-fp', '--mount-proc', 'bash', '-c', outer], {
    timeout: 60_000,
    killSignal: 'SIGKILL',
  });
  return [...stdout.matchAll(/init exited (\d+)/g)].map((match) => Number(match[1]));
}

describe.runIf(ROOT)('the pid 1 init under repeated stop signals', () => {
  it('exits with the command’s status after one forwarded SIGTERM (the control)', async () => {
    expect(await exitCodes(3, false)).toEqual([3, 3, 3]);
  }, 60_000);

  it('exits with the command’s status while SIGTERMs keep coming', async () => {
    expect(await exitCodes(3, true)).toEqual([3, 3, 3]);
  }, 60_000);
});
