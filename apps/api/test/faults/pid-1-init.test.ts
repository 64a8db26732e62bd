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
