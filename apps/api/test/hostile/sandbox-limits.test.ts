import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ServerUser } from './hostile-server';
import { contained, hostProcesses, openSession, probePython, runCode, useProbes } from './sandbox-probe';

// Class 3 and the limits of the trust boundary (issue 15): sandboxed code cannot raise its own limits (cgroup or
// rlimit), and when it runs into them (processes, memory, time) the run ends, what is reported about it is what
// happened, the server stays healthy and the next run is unharmed. The hostile server caps each sandbox at 64
// processes and 256 MB. A root test runs every probe twice: against a server run as root, and against one run as
// nobody with a cgroup subtree delegated to it (packages/local-sandbox/bin/delegate-cgroups.sh), as the README
// says to run Fusebox unprivileged: the limits must hold for both.

const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;
// (With FUSEBOX_HOSTILE_SERVER_UID set, every hostile server runs as that uid: the root one is left out.)
const SERVERS: { as: string; user?: ServerUser }[] = isRoot
  ? [
      ...(process.env.FUSEBOX_HOSTILE_SERVER_UID ? [] : [{ as: 'root' }]),
      { as: 'nobody', user: { uid: NOBODY, gid: NOBODY } },
    ]
  : [{ as: "this test's user" }];
const MAX_PROCESSES = 64;
const MEMORY_CAP_BYTES = 256 * 1024 * 1024;

/** The host's view of a process's cgroup in one v1 hierarchy (`pids`, `memory`), or undefined. */
function hostCgroup(pid: number, controller: string): string | undefined {
  let cgroups: string;
  try {
    cgroups = readFileSync(`/proc/${pid}/cgroup`, 'utf8');
  } catch {
    return undefined; // it ended since it was listed: the caller looks again
  }
  const line = cgroups.split('\n').find((entry) => entry.split(':')[1]?.split(',').includes(controller));
  const path = line?.split(':')[2];
  return path === undefined ? undefined : `/sys/fs/cgroup/${controller}${path}`;
}

/** Polls until no host process's command line holds `marker` (up to 10 s); the pids still there. */
async function gone(marker: string): Promise<number[]> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (hostProcesses(marker).length === 0) return [];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return hostProcesses(marker).map((process) => process.pid);
}

describe.each(SERVERS)('sandboxed code, run by a server as $as, as to its own limits', ({ user }) => {
  const probes = useProbes({}, user);

  it('cannot raise its cgroup limits or its rlimits, which the host still sees in place, while it lowers its own', async () => {
    const h = probes.server();
    const marker = `fusebox-hostile-limits-${process.pid}`;
    const seen: Record<string, string> = {};
    const result = await contained(h, async () => {
      const probe = probePython(
        h,
        'run_code',
        `
for path in ("/sys/fs/cgroup/pids/pids.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes",
             "/sys/fs/cgroup/pids.max", "/sys/fs/cgroup/memory.max",
             "/proc/1/root/sys/fs/cgroup/pids/pids.max", "/proc/self/root/sys/fs/cgroup/memory/memory.max"):
    result[path] = write(path, b"max\\n")
result["cgroup_namespace"] = sorted(set(line.split(":")[2] for line in open("/proc/self/cgroup").read().split()))
fsize = resource.getrlimit(resource.RLIMIT_FSIZE)
result["fsize_raise"] = attempt(lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY,) * 2))
result["core_raise"] = attempt(lambda: resource.setrlimit(resource.RLIMIT_CORE, (1 << 20, 1 << 20)))
# Controls: a file named like a cgroup's, made here, is writable, and a limit can be lowered and then bites.
result["own_file"] = write("pids.max", b"max\\n", create=True)
resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, fsize[1]))
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
with open("big", "wb", buffering=0) as f:
    result["short_write"] = attempt(lambda: f.write(b"x" * (2 << 20)))
    result["past_lowered_fsize"] = attempt(lambda: f.write(b"x"))
print("\\n" + json.dumps(result), flush=True)
os.execv("/bin/sleep", ["${marker}", "3"])
`,
      );
      // Awaited below; a probe that fails while the host looks on must not count as unhandled meanwhile.
      probe.catch(() => undefined);
      for (let attempt = 0; attempt < 100 && Object.keys(seen).length < 2; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const [found] = hostProcesses(marker);
        if (found === undefined || !isRoot) continue;
        const pids = hostCgroup(found.pid, 'pids');
        const memory = hostCgroup(found.pid, 'memory');
        if (pids !== undefined && existsSync(`${pids}/pids.max`))
          seen.pids = readFileSync(`${pids}/pids.max`, 'utf8').trim();
        if (memory !== undefined && existsSync(`${memory}/memory.limit_in_bytes`))
          seen.memory = readFileSync(`${memory}/memory.limit_in_bytes`, 'utf8').trim();
      }
      return probe;
    });
    for (const path of [
      '/sys/fs/cgroup/pids/pids.max',
      '/sys/fs/cgroup/memory/memory.limit_in_bytes',
      '/sys/fs/cgroup/pids.max',
      '/sys/fs/cgroup/memory.max',
      '/proc/1/root/sys/fs/cgroup/pids/pids.max',
      '/proc/self/root/sys/fs/cgroup/memory/memory.max',
    ])
      // Through pid 1's root: none there where pid 1 shares the run's root, refused where it is run-init.
      expect(result[path], path).toMatch(path.startsWith('/proc/1/') ? /^(ENOENT|EACCES)$/ : /^ENOENT$/);
    // Its cgroups are the roots of its own cgroup namespace: nothing above it to name.
    expect(result.cgroup_namespace).toEqual(['/']);
    expect(result).toMatchObject({
      fsize_raise: expect.stringMatching(/^(EPERM|ValueError)$/) as string,
      core_raise: expect.stringMatching(/^(EPERM|ValueError)$/) as string,
      own_file: 'written',
      short_write: 1 << 20,
      past_lowered_fsize: 'EFBIG',
    });
    // From the host, while it ran after all that: its cgroup still holds the server's limits.
    if (isRoot) expect(seen).toEqual({ pids: String(MAX_PROCESSES), memory: String(MEMORY_CAP_BYTES) });
  });

  it('stops a counted fork bomb at the process cap, and the next run is unharmed', async () => {
    const result = await probes.python(
      'run_jupyter',
      `
children = []
try:
    for _ in range(1000):
        pid = os.fork()
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        children.append(pid)
    result["stopped_by"] = "nothing"
except OSError as error:
    result["stopped_by"] = name(error)
result["children"] = len(children)
for pid in children:
    os.kill(pid, signal.SIGKILL)
result["reaped"] = sum(1 for pid in children if os.waitpid(pid, 0)[0] == pid)
`,
      // Its thousand forks and kills take long on a loaded machine.
      30,
    );
    expect(result.stopped_by).toBe('EAGAIN');
    expect(result.children).toBeLessThan(MAX_PROCESSES);
    // Control: forks worked until the cap, and each child was its own to kill and reap.
    expect(result.children).toBeGreaterThan(MAX_PROCESSES / 2);
    expect(result.reaped).toBe(result.children);
    const next = await probes.run('python', 'print(6 * 7)');
    expect(next.run_result).toMatchObject({ status: 'Finished', return_code: 0, stdout: '42\n' });
  });

  it('ends a shell fork bomb at its timeout as Failed, leaves none of it on the host, and the next run is unharmed', async () => {
    const h = probes.server();
    const marker = `fusebox-hostile-bomb-${process.pid}`;
    const started = performance.now();
    let most = 0;
    const answer = await contained(h, async () => {
      let done = false;
      const run = runCode(
        h,
        'bash',
        `echo started\nexec -a ${marker} bash -c 'bomb() { bomb | bomb & }; bomb; while :; do :; done'`,
        { run_timeout: 3 },
      ).finally(() => (done = true));
      // Seen from the host while it runs: the bomb's processes, never more than the cap.
      while (!done) {
        most = Math.max(most, hostProcesses(marker).length);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return run;
    });
    const seconds = (performance.now() - started) / 1000;
    expect(answer.status).toBe('Failed');
    expect(answer.run_result.status).toBe('TimeLimitExceeded');
    expect(seconds).toBeLessThan(30);
    expect(most).toBeLessThanOrEqual(MAX_PROCESSES);
    expect(await gone(marker)).toEqual([]);
    // Controls: the bomb did start and multiply, and the server runs code as before.
    expect(answer.run_result.stdout).toMatch(/^started\n/);
    expect(most).toBeGreaterThan(1);
    const next = await probes.run('bash', 'echo $((6 * 7))');
    expect(next.run_result).toMatchObject({ status: 'Finished', return_code: 0, stdout: '42\n' });
  });

  it('is killed at the memory cap when it asks for no limit, after the memory under the cap was its own', async () => {
    const answer = await probes.run(
      'python',
      `
chunks = []
for mb in range(16, 1025, 16):
    chunks.append(bytearray(16 << 20))
    for offset in range(0, 16 << 20, 4096):
        chunks[-1][offset] = 1
    print(mb, flush=True)
`,
      { memory_limit_MB: -1 },
    );
    const reached = answer.run_result.stdout.trim().split('\n').map(Number);
    expect(answer.status).toBe('Failed');
    expect(answer.run_result.return_code).toBe(137);
    expect(Math.max(...reached)).toBeLessThan(MEMORY_CAP_BYTES / 2 ** 20);
    // Control: the first 64 MB were allocated and touched before the cap bit.
    expect(Math.max(...reached)).toBeGreaterThanOrEqual(64);
    const limited = await probes.run(
      'python',
      'try:\n    bytearray(200 << 20)\nexcept MemoryError:\n    print("MemoryError")',
      { memory_limit_MB: 100 },
    );
    expect(limited.run_result).toMatchObject({ return_code: 0, stdout: 'MemoryError\n' });
  });

  it('is killed at the memory cap for what it makes the kernel hold: inodes of empty files, socket buffers', async () => {
    const bomb = (kind: 'inodes' | 'sockets', count: number) => `
import os, socket
made = 0
if "${kind}" == "inodes":
    os.mkdir("d")
    for made in range(1, ${count} + 1):
        os.close(os.open("d/%d" % made, os.O_CREAT | os.O_WRONLY, 0o600))
        if made % 50000 == 0:
            print(made, flush=True)
else:
    pairs, chunk = [], b"x" * 65536
    for made in range(1, ${count} + 1):
        a, b = socket.socketpair()
        a.setblocking(False)
        try:
            while True:
                a.send(chunk)
        except BlockingIOError:
            pass
        pairs.append((a, b))
        if made % 250 == 0:
            print(made, flush=True)
print("made", made, flush=True)
`;
    // Far past the cap: two million inodes (about 1.5 GB of the kernel's), 4000 full socket pairs (about 900 MB).
    for (const [kind, count] of [
      ['inodes', 2_000_000],
      ['sockets', 4000],
    ] as const) {
      const answer = await probes.run('python', bomb(kind, count), { run_timeout: 30 });
      expect(answer.run_result.return_code, kind).toBe(137);
      expect(answer.run_result.stdout, kind).not.toContain('made');
      // Control: it got going before the cap stopped it.
      expect(answer.run_result.stdout, kind).toMatch(/^\d+\n/);
    }
    // Control: the same programs within the cap run to the end.
    for (const [kind, count] of [
      ['inodes', 1000],
      ['sockets', 10],
    ] as const) {
      const answer = await probes.run('python', bomb(kind, count));
      expect(answer.run_result, kind).toMatchObject({ return_code: 0, stdout: `made ${count}\n` });
    }
  });

  it('kills a session interpreter at the memory cap: the cell says died, and a restart gives a working one', async () => {
    const h = probes.server();
    const { hog, after, restarted, next } = await contained(h, async () => {
      const session = await openSession(h, { memory_limit_MB: -1 });
      try {
        await session.run('kept = 41');
        const hog = await session.run('chunks = [bytearray(b"x" * (16 << 20)) for _ in range(64)]', 30);
        const after = await session.cell('kept + 1');
        const restarted = await h.post(`/v1/sandbox/sessions/${session.id}/restart`, {});
        const next = await session.run('print(6 * 7)');
        return { hog, after, restarted, next };
      } finally {
        await session.close();
      }
    });
    expect(hog).toMatchObject({ status: 'died' });
    expect(after.status).toBe(409);
    // Control: the restarted interpreter runs cells again.
    expect(restarted.status).toBe(200);
    expect(next).toMatchObject({ status: 'ok', stdout: '42\n' });
  });

  it('ends a CPU spin that ignores SIGTERM and forks more spinners at run_timeout 1, reported as the timeout it was', async () => {
    const marker = `fusebox-hostile-spin-${process.pid}`;
    const code = (spin: boolean) => `
import os, signal, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv("/bin/bash", ["${marker}", "-c", "trap '' TERM HUP; touch up; while ${spin ? 'true' : 'false'}; do :; done"])
    os._exit(0)
while not os.path.exists("up"):
    time.sleep(0.01)
print("started", flush=True)
while ${spin ? 'True' : 'False'}:
    pass
`;
    const started = performance.now();
    const answer = await probes.run('python', code(true), { run_timeout: 1 });
    const seconds = (performance.now() - started) / 1000;
    expect(answer.status).toBe('Failed');
    expect(answer.run_result).toMatchObject({ status: 'TimeLimitExceeded', return_code: null });
    expect(answer.run_result.execution_time).toBeGreaterThanOrEqual(0.9);
    expect(answer.run_result.execution_time).toBeLessThan(30);
    expect(seconds).toBeLessThan(30);
    expect(await gone(marker)).toEqual([]);
    // Controls: the daemonised spinner was up, and the same program that stops by itself is a Success under the same timeout.
    expect(answer.run_result.stdout).toBe('started\n');
    const quick = await probes.run('python', code(false), { run_timeout: 1 });
    expect(quick.status).toBe('Success');
    expect(quick.run_result).toMatchObject({ status: 'Finished', return_code: 0, stdout: 'started\n' });
  });

  it('ends a spinning session cell at its timeout: the cell says timeout, while the cell before it was answered', async () => {
    const h = probes.server();
    const { first, spin, seconds, after } = await contained(h, async () => {
      const session = await openSession(h);
      try {
        const first = await session.run('print("before")');
        const started = performance.now();
        const spin = await session.run('while True:\n    pass', 1);
        const seconds = (performance.now() - started) / 1000;
        const after = await session.cell('print("after")');
        return { first, spin, seconds, after };
      } finally {
        await session.close();
      }
    });
    expect(spin).toMatchObject({ status: 'timeout', alive: false });
    expect(seconds).toBeLessThan(30);
    expect(after.status).toBe(409);
    expect(first).toMatchObject({ status: 'ok', stdout: 'before\n' });
  });
});
