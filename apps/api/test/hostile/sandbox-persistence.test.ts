import { describe, expect, it } from 'vitest';
import { contained, hostProcesses, openSession, runCode, useProbes } from './sandbox-probe';

// Persistence across the trust boundary (issue 15): nothing one run leaves behind (files, shared memory, IPC
// objects, processes) reaches the next run, whichever door either came in by; a session keeps its own state
// between its cells, and nothing of it reaches another session or outlives it.

const probes = useProbes();

/** Polls until no host process's command line holds `marker` (up to 10 s); the pids still there. */
async function gone(marker: string): Promise<number[]> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (hostProcesses(marker).length === 0) return [];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return hostProcesses(marker).map((process) => process.pid);
}

/** Python: SysV IPC through libc, by a fixed key: `ipc(kind, create)` answers "ok" or the errno's name. */
const SYSV = `
IPC_CREAT, KEY = 0o1000, 0x46b0c5
def ipc(kind, create):
    ctypes.set_errno(0)
    flags = (IPC_CREAT | 0o600) if create else 0
    value = libc.shmget(KEY, 4096, flags) if kind == "shm" else libc.msgget(KEY, flags) if kind == "msg" else libc.semget(KEY, 1, flags)
    return "ok" if value >= 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
`;

describe('what one run leaves behind, as the next run looks for it', () => {
  it('leaves no file, shared memory segment, semaphore or SysV IPC object to the next run', async () => {
    const leave = await probes.python(
      'run_code',
      `${SYSV}
from multiprocessing import shared_memory
for path in ("/tmp/left", "/dev/shm/left", "left", os.environ["HOME"] + "/.left"):
    write(path, b"secret", create=True)
segment = shared_memory.SharedMemory(name="fusebox-left", create=True, size=4096)
segment.close()
import _multiprocessing
semaphore = _multiprocessing.SemLock(1, 1, 1, "/fusebox-left", False)
result["created"] = {kind: ipc(kind, True) for kind in ("shm", "msg", "sem")}
# Controls: each is there within the same run.
result["files"] = sorted(os.listdir("/dev/shm"))
result["found"] = {kind: ipc(kind, False) for kind in ("shm", "msg", "sem")}
result["cwd"] = os.getcwd()
`,
    );
    expect(leave.created).toEqual({ shm: 'ok', msg: 'ok', sem: 'ok' });
    expect(leave.found).toEqual({ shm: 'ok', msg: 'ok', sem: 'ok' });
    expect(leave.files).toEqual(expect.arrayContaining(['left', 'fusebox-left', 'sem.fusebox-left']));
    for (const route of ['run_jupyter', 'session'] as const) {
      const next = await probes.python(
        route,
        `${SYSV}
result["paths"] = [os.path.exists(p) for p in ("/tmp/left", "/dev/shm/left", "${leave.cwd as string}/left", "/tmp/.left")]
result["shm"] = sorted(os.listdir("/dev/shm"))
result["found"] = {kind: ipc(kind, False) for kind in ("shm", "msg", "sem")}
`,
      );
      expect(next.paths, route).toEqual([false, false, false, false]);
      expect(next.shm, route).toEqual([]);
      expect(next.found, route).toEqual({ shm: 'ENOENT', msg: 'ENOENT', sem: 'ENOENT' });
    }
  });

  it('leaves no process behind, daemonised, setsid, nohup or ignoring SIGHUP, seen from the host and the next run', async () => {
    const h = probes.server();
    const marker = `fusebox-hostile-left-${process.pid}`;
    let seenWhileRunning = 0;
    const answer = await contained(h, async () => {
      let done = false;
      const run = runCode(
        h,
        'bash',
        `
(trap '' HUP TERM; exec -a ${marker}-daemon sleep 60) & disown
setsid bash -c 'exec -a ${marker}-setsid sleep 60' &
nohup bash -c 'exec -a ${marker}-nohup sleep 60' >/dev/null 2>&1 &
python3 -c '
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv("/bin/sleep", ["${marker}-double-fork", "60"])
    os._exit(0)
'
sleep 2
echo left
`,
      ).finally(() => (done = true));
      while (!done) {
        // By argv[0] alone: the shells and the python that start them carry the marker in their arguments, and
        // a loaded machine lets the poll see them before they exec or exit.
        seenWhileRunning = Math.max(seenWhileRunning, hostProcesses(marker, { named: true }).length);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return run;
    });
    expect(answer.run_result).toMatchObject({ status: 'Finished', return_code: 0, stdout: 'left\n' });
    expect(await gone(marker)).toEqual([]);
    const next = await probes.python(
      'run_code',
      `result["commands"] = [open("/proc/%s/cmdline" % p, "rb").read().decode(errors="replace") for p in os.listdir("/proc") if p.isdigit()]`,
    );
    expect((next.commands as string[]).some((command) => command.includes(marker))).toBe(false);
    // Control: the host saw all four while the run went on.
    expect(seenWhileRunning).toBe(4);
  });

  it("keeps a session's state between its cells, but none of it reaches another session or outlives it", async () => {
    const h = probes.server();
    const marker = `fusebox-hostile-session-${process.pid}`;
    const outcome = await contained(h, async () => {
      const first = await openSession(h);
      const second = await openSession(h);
      try {
        await first.run(
          `import os, subprocess\nsecret = "mine"\nopen("kept", "w").write("kept")\nopen("/dev/shm/kept", "w").write("kept")\nsubprocess.Popen(["bash", "-c", "exec -a ${marker} sleep 60"])\ncwd = os.getcwd()`,
        );
        const later = await first.run(
          'print(secret, open("kept").read(), open("/dev/shm/kept").read(), flush=True)',
        );
        const cwd = (await first.run('print(cwd)')).stdout.trim();
        const other = await second.run(
          `import os\nprint(os.path.exists("${cwd}/kept"), os.path.exists("/dev/shm/kept"), "secret" in globals(), any("${marker}" in open("/proc/%s/cmdline" % p, "rb").read().decode(errors="replace") for p in os.listdir("/proc") if p.isdigit()))`,
        );
        const aliveInSession = hostProcesses(marker).length;
        await first.close();
        return { later, other, aliveInSession, gone: await gone(marker) };
      } finally {
        await first.close();
        await second.close();
      }
    });
    // Control: within the session, its variable, files and process persist from cell to cell.
    expect(outcome.later).toMatchObject({ status: 'ok', stdout: 'mine kept kept\n' });
    expect(outcome.aliveInSession).toBe(1);
    expect(outcome.other).toMatchObject({ status: 'ok', stdout: 'False False False False\n' });
    expect(outcome.gone).toEqual([]);
  });
});
