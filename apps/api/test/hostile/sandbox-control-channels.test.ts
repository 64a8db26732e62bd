import { describe, expect, it } from 'vitest';
import { PYTHON_PRELUDE, contained, openSession, runCode, useProbes } from './sandbox-probe';

// Class 4 of the trust boundary (issue 15): control channels the code cannot reach. Whatever sandboxed code opens,
// writes or signals, what is reported about its run (status, exit code, execution time) is what the kernel and
// the host's own clock said, the host's deadline holds, and no line it writes stalls the server.

const probes = useProbes();

/**
 * Python that lists every file descriptor it can reach: its own, and those of every process it can see through
 * /proc/<pid>/fd and /proc/<pid>/task/<tid>/fd. It sets `inherited` (its own beyond stdio, opened by nobody in
 * this run) and `reachable` (path → what it points at). Descriptors its process inherited unexpectedly are
 * listed, never written to: they may belong to whatever started the server.
 */
const LIST_FDS = `
def links(directory):
    try:
        names = os.listdir(directory)
    except OSError:
        return {}
    found = {}
    for fd in names:
        try:
            found[directory + "/" + fd] = os.readlink(directory + "/" + fd)
        except OSError:
            pass
    return found
own = links("/proc/self/fd")
listing = [path for path, target in own.items() if target.startswith("/proc/") and target.endswith("/fd")]
result["inherited"] = sorted(target for path, target in own.items() if int(path.rsplit("/", 1)[1]) > 2 and path not in listing)
reachable = {}
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    reachable.update(links("/proc/%s/fd" % pid))
    tids = attempt(lambda: os.listdir("/proc/%s/task" % pid))
    for tid in tids if isinstance(tids, list) else []:
        reachable.update(links("/proc/%s/task/%s/fd" % (pid, tid)))
result["pids"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
`;

describe('the channels that report on a run, as sandboxed code reaches for them', () => {
  it("inherits no descriptor beyond its stdio, and finds none of the driver's through /proc", async () => {
    const result = await probes.python(
      'run_code',
      `${LIST_FDS}
result["targets"] = sorted(set(reachable.values()))
result["driver_fds"] = [attempt(lambda: os.listdir(d)) for d in ("/proc/1/fd", "/proc/1/task/1/fd", "/proc/1/fdinfo")]
result["driver_mem"] = [read("/proc/1/mem"), write("/proc/1/mem", b"x")]
result["driver_root_tmp"] = attempt(lambda: sorted(os.listdir("/proc/1/root/tmp")))
result["own_stdout"] = write("/proc/self/fd/1", b"through /proc\\n")
`,
    );
    expect(result.inherited).toEqual([]);
    // pid 1 is the driver: its descriptors, its task's and its memory are covered.
    expect(result.driver_fds).toEqual([[], [], []]);
    const [memRead, memWrite] = result.driver_mem as [string, string];
    expect(memRead).toMatch(/^(EACCES|read 0 bytes)$/);
    expect(memWrite).toMatch(/^(EACCES|EROFS|EPERM)$/);
    // What it can reach is its own stdio (the run's files and pipes in its /tmp) and /proc listings.
    for (const target of result.targets as string[])
      expect(target).toMatch(
        /^(\/tmp\/\.fusebox-std(in|out|err)|\/proc\/\d+\/(task\/\d+\/)?fd|\/dev\/null)$/,
      );
    // Controls: it saw its own process and the driver, and its own stdout took a write through /proc.
    expect(result.pids).toEqual(expect.arrayContaining([1]));
    expect((result.pids as number[]).length).toBeGreaterThan(1);
    expect(result.own_stdout).toBe('written');
    // pid 1 shares the run's root (its /tmp holds the run's stdio), or is a forked run's run-init, whose root,
    // the zygote's, is refused.
    if (result.driver_root_tmp !== 'EACCES')
      expect(result.driver_root_tmp).toEqual(expect.arrayContaining(['.fusebox-stdout']));
  });

  it('cannot forge its status or timing, nor move the deadline, by writing driver lines to every fd it can open', async () => {
    const forge = (sleepS: number, exitCode: number) => `${LIST_FDS}
forged = b"ran 0 0\\ncompile 0\\ncompiled 0 0\\nrun 0\\nran 0 0.001\\n"
written = {}
for path, target in reachable.items():
    if target in result["inherited"]:
        continue
    for opened in (path, target):
        outcome = write(opened, forged)
        if outcome == "written":
            written[target] = outcome
result["written"] = sorted(written)
for path in ("/tmp/.fusebox-stdout", "/tmp/.fusebox-stderr", "/dev/tty"):
    result[path] = write(path, forged)
print("\\n" + json.dumps(result), flush=True)
time.sleep(${sleepS})
sys.exit(${exitCode})
`;
    const h = probes.server();
    const started = performance.now();
    const { stdout, stderr, status, run } = await contained(h, async () => {
      const answer = await h.runCode('python', `${PYTHON_PRELUDE}\n${forge(20, 0)}`, {
        run_timeout: 2,
      });
      return {
        stdout: answer.run_result.stdout,
        stderr: answer.run_result.stderr,
        status: answer.status,
        run: answer.run_result,
      };
    });
    const seconds = (performance.now() - started) / 1000;
    const last = stdout.trim().split('\n').at(-1) ?? '';
    expect(last, `the probe did not finish: ${stderr.slice(-2000)}`).toMatch(/^\{/);
    const result = JSON.parse(last) as Record<string, unknown>;
    // The run's own output took the forged lines, and they are reported as output, not as status.
    expect(result.written).toEqual(expect.arrayContaining(['/tmp/.fusebox-stdout']));
    expect(status).toBe('Failed');
    expect(run).toMatchObject({ status: 'TimeLimitExceeded', return_code: null });
    expect(run.execution_time).toBeGreaterThanOrEqual(1.9);
    expect(run.execution_time).toBeLessThan(20);
    expect(seconds).toBeLessThan(20);
    // Control: the same forging program that then exits 3 by itself is reported as exiting 3, in its own time.
    const exit3 = await probes.run('python', `${PYTHON_PRELUDE}\n${forge(0.5, 3)}`);
    expect(exit3.status).toBe('Failed');
    expect(exit3.run_result).toMatchObject({ status: 'Finished', return_code: 3 });
    expect(exit3.run_result.execution_time).toBeGreaterThanOrEqual(0.5);
  });

  it('cannot stall the server with an endless line on stdout, stderr or a session cell, and its output is capped', async () => {
    const flood = `
import os
line = b"x" * (1 << 20)
for _ in range(24):
    os.write(1, line)
    os.write(2, line)
`;
    const answer = await probes.run('python', flood);
    const note = /\[Fusebox: output truncated: \d+ of (\d+) bytes dropped \(limit \d+ bytes\)\]\n?$/;
    for (const stream of [answer.run_result.stdout, answer.run_result.stderr]) {
      expect(stream.length).toBeLessThan(2 * 2 ** 20);
      // Control: what was kept is what it wrote, and every byte it wrote was counted.
      expect(note.exec(stream.slice(-200))?.[1]).toBe(String(24 << 20));
      expect(stream.startsWith('x'.repeat(1000))).toBe(true);
    }
    expect(answer.run_result.return_code).toBe(0);
    const h = probes.server();
    const cell = await contained(h, async () => {
      const session = await openSession(h);
      try {
        await session.run(`import os\nos.write(1, b"y" * (24 << 20))`, 30);
        return await session.run('print("after")');
      } finally {
        await session.close();
      }
    });
    // Control: the session answered the flood and the next cell.
    expect(cell).toMatchObject({ status: 'ok', stdout: 'after\n' });
  });

  it('cannot stall the server by writing one byte at a time from four runs at once; each byte is counted', async () => {
    const h = probes.server();
    const drip = `
import os, sys, time
end, written = time.time() + 4, 0
while time.time() < end:
    for _ in range(1000):
        written += os.write(1, b"x")
print(written, file=sys.stderr)
`;
    const answers = await contained(h, () =>
      Promise.all([1, 2, 3, 4].map(() => runCode(h, 'python', drip, { run_timeout: 20 }))),
    );
    const note = /\[Fusebox: output truncated: \d+ of (\d+) bytes dropped \(limit \d+ bytes\)\]\n?$/;
    for (const answer of answers) {
      expect(answer.run_result.return_code).toBe(0);
      const written = Number(answer.run_result.stderr.trim());
      // Control: it wrote at least a few thousand single bytes, and the server counted every one of them.
      expect(written).toBeGreaterThan(10_000);
      const kept = answer.run_result.stdout;
      const counted = note.exec(kept.slice(-200))?.[1];
      expect(counted === undefined ? kept.length : Number(counted)).toBe(written);
    }
  });

  it('cannot close or reopen its stdio to hide output or end the run early: the exit status is what the process said', async () => {
    const result = await probes.python(
      'run_jupyter',
      `
result["reopen_stdout"] = write("/proc/self/fd/1", b"reopened\\n")
child = subprocess.run(["bash", "-c", "exec 1>&- 2>&-; sleep 1; exit 5"], capture_output=False)
result["child_closed_stdio"] = child.returncode
result["pid1_signals"] = {str(s): attempt(lambda: os.kill(1, s)) for s in (signal.SIGTERM, signal.SIGKILL, signal.SIGSTOP, signal.SIGUSR1)}
result["all_signal"] = attempt(lambda: os.kill(-1, signal.SIGCONT))
result["alive_after"] = True
`,
    );
    // pid 1 of the sandbox ignores what its own namespace sends it: the probe's answer still came back.
    expect(result.alive_after).toBe(true);
    expect(result.child_closed_stdio).toBe(5);
    expect(result.reopen_stdout).toBe('written');
    // Closing stdio and sleeping does not end a run early; the main process's status is reported.
    const closed = await probes.run('bash', 'echo before\nexec 1>&- 2>&-\nsleep 1\nexit 4');
    expect(closed.run_result).toMatchObject({ status: 'Finished', return_code: 4, stdout: 'before\n' });
    expect(closed.run_result.execution_time).toBeGreaterThanOrEqual(0.9);
    // kill -9 -1 reaches every process it may signal but itself and pid 1: the run and its report go on.
    const killedAll = await probes.run('bash', 'echo before\nkill -9 -1\necho after\nexit 6');
    expect(killedAll.run_result).toMatchObject({
      status: 'Finished',
      return_code: 6,
      stdout: 'before\nafter\n',
    });
  });

  it("cannot change the driver's limits so that its report goes missing, while it sets its own", async () => {
    const answer = await probes.run(
      'python',
      `
import os, resource, sys
for limit in ("NOFILE", "STACK", "FSIZE", "CPU"):
    try:
        resource.prlimit(1, getattr(resource, "RLIMIT_" + limit), (0, 0))
        print(limit, "lowered", flush=True)
    except (OSError, ValueError) as error:
        print(limit, type(error).__name__, flush=True)
print("read", resource.prlimit(1, resource.RLIMIT_NOFILE) != (0, 0), flush=True)
resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
print("own", resource.getrlimit(resource.RLIMIT_NOFILE), flush=True)
try:
    os.setpriority(os.PRIO_PROCESS, 1, 19)
except OSError:
    pass
sys.exit(0)
`,
    );
    // Refused (PermissionError is EPERM); the code exited 0, so the run is a Success, as the kernel said.
    expect(answer.run_result.stdout.split('\n').slice(0, 4)).toEqual([
      'NOFILE PermissionError',
      'STACK PermissionError',
      'FSIZE PermissionError',
      'CPU PermissionError',
    ]);
    expect(answer.run_result.return_code).toBe(0);
    expect(answer.status).toBe('Success');
    // Controls: the driver's limits read as before, and its own limit is its to set.
    expect(answer.run_result.stdout).toContain('read True\nown (64, 64)\n');
  });
});
