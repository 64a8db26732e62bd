import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSession, useProbes } from './sandbox-probe';

// Review of the changes of 2026-11-25 (RLIMIT_NPROC per sandbox, asynchronous fetch_files): attacks that
// model-written code could make through the real routes, each beside a control that shows the probe works.

const probes = useProbes();
const base64 = (text: string) => Buffer.from(text).toString('base64');

// A host file the sandbox cannot see: what it must never get back.
const hostDir = mkdtempSync(join(tmpdir(), 'fusebox-review-secret-'));
const SECRET = `host-secret-${process.pid}`;
writeFileSync(join(hostDir, 'x'), SECRET);
afterAll(() => rmSync(hostDir, { recursive: true, force: true }));

describe('fetch_files while the sandbox is still dying', () => {
  it('never follows a directory swapped for a symlink between the check and the open', async () => {
    // Processes left behind keep swapping `a` between a real directory (holding a decoy `x`) and a symlink to
    // a host directory; a fork each round, so a kill that lists the processes first misses the newest one.
    // code-runner kills the sandbox (a message to the spawner) and fetches at once.
    const code = `
import ctypes, os, sys
os.mkdir("real"); open("real/x", "w").write("decoy")
os.symlink(${JSON.stringify(hostDir)}, "link")
open("own.txt", "w").write("mine")
libc = ctypes.CDLL(None, use_errno=True)
if os.fork() == 0:
    os.setsid()
    for fd in (0, 1, 2): os.close(fd)
    os.rename("real", "a")
    while True:
        if os.fork() == 0:
            for _ in range(200):
                libc.syscall(316, -100, b"a", -100, b"link", 2)  # renameat2 RENAME_EXCHANGE
            os._exit(0)
        os.wait()
import time
# Until both states were seen (a loaded machine once took over half a second to start the swapping).
links = dirs = 0
end = time.time() + 5
while time.time() < end and not (links and dirs):
    if os.path.islink("a"): links += 1
    elif os.path.isdir("a"): dirs += 1
print("ok" if links and dirs else "not swapping")
`;
    const variants = Array.from({ length: 300 }, (_, i) => `${'./'.repeat(i)}a/x`);
    let leaked = 0;
    let decoys = 0;
    // When the swapping processes die before the reads, every read sees the state they left: the symlink half the
    // time. So at least four attempts, and more until one read the decoy (a CI run once saw four symlinks).
    for (let attempt = 0; attempt < 4 || (decoys === 0 && attempt < 16); attempt += 1) {
      const answer = await probes.run('python', code, { fetch_files: ['own.txt', ...variants] });
      expect(answer.run_result.stdout).toBe('ok\n');
      // Control: the fetch works, and the swapped path was read at least sometimes.
      expect(answer.files['own.txt']).toBe(base64('mine'));
      for (const value of Object.values(answer.files)) {
        const text = Buffer.from(value, 'base64').toString();
        if (text === SECRET) leaked += 1;
        if (text === 'decoy') decoys += 1;
      }
    }
    expect(decoys).toBeGreaterThan(0);
    expect(leaked).toBe(0);
  }, 120_000);
});

describe('RLIMIT_NPROC, set by the step driver and the interpreter kernel', () => {
  const NPROC = `
import threading
RLIMIT_NPROC = resource.RLIMIT_NPROC
soft, hard = resource.getrlimit(RLIMIT_NPROC)
result["limit"] = [soft, hard]
def attempt(name, action):
    try:
        action()
        result[name] = "ok"
    except OSError as error:
        result[name] = errno.errorcode.get(error.errno, str(error.errno))
    except ValueError:
        result[name] = "ValueError"
attempt("raise_hard", lambda: resource.setrlimit(RLIMIT_NPROC, (hard + 1, hard + 1)))
attempt("unlimited", lambda: resource.setrlimit(RLIMIT_NPROC, (resource.RLIM_INFINITY, resource.RLIM_INFINITY)))
for target in (1, os.getppid()):
    attempt("prlimit_%d" % target, lambda: resource.prlimit(target, RLIMIT_NPROC, (hard + 100, hard + 100)))
result["after"] = list(resource.getrlimit(RLIMIT_NPROC))
# Control: a few forks work. Then threads and forks (vfork-style posix_spawn too) until the kernel says no.
children, threads, stop = [], [], threading.Event()
for _ in range(3):
    pid = os.fork()
    if pid == 0:
        time.sleep(5); os._exit(0)
    children.append(pid)
result["few_forks"] = len(children)
try:
    while len(threads) < 1000:
        t = threading.Thread(target=stop.wait); t.start(); threads.append(t)
except RuntimeError:
    pass
try:
    while len(children) < 1000:
        children.append(os.posix_spawn("/bin/sleep", ["sleep", "5"], os.environ))
except OSError as error:
    result["spawn_stopped"] = errno.errorcode.get(error.errno)
result["tasks"] = len(threads) + len(children) + 1
stop.set()
for pid in children:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
`;
  for (const route of ['run_code', 'session'] as const) {
    it(`cannot be raised, set on pid 1 or the parent, or outrun with threads and spawns (${route})`, async () => {
      const result = await probes.python(route, NPROC, 30);
      const [soft, hard] = result.limit as number[];
      expect(soft).toBe(hard);
      expect(hard).toBeGreaterThan(3);
      expect(hard).toBeLessThan(100_000);
      expect(result.raise_hard).toBe('ValueError');
      expect(result.unlimited).toBe('ValueError');
      expect(result.prlimit_1).toBe('EPERM');
      expect(Object.entries(result).filter(([k, v]) => k.startsWith('prlimit_') && v === 'ok')).toEqual([]);
      expect(result.after).toEqual([soft, hard]);
      // Control: forking works below the cap; threads and spawns together stop at it.
      expect(result.few_forks).toBe(3);
      expect(result.spawn_stopped).toBe('EAGAIN');
      expect(result.tasks as number).toBeLessThanOrEqual(hard as number);
    }, 60_000);
  }

  it('held at its cap by one sandbox, does not stop another from forking', async () => {
    const bomb = `
import os, time
n = 0
try:
    while True:
        if os.fork() == 0:
            time.sleep(6); os._exit(0)
        n += 1
except OSError:
    pass
time.sleep(5)  # held at the cap while the neighbour forks
print("held", n)
`;
    const neighbour = `
import os, time
time.sleep(2)
pids = []
for _ in range(20):
    pid = os.fork()
    if pid == 0: os._exit(0)
    pids.append(pid)
for pid in pids: os.waitpid(pid, 0)
print("forked", len(pids))
`;
    const [held, other] = await Promise.all([
      probes.run('python', bomb, { run_timeout: 15 }),
      probes.run('python', neighbour, { run_timeout: 15 }),
    ]);
    expect(held.run_result.stdout).toMatch(/^held \d+\n$/);
    expect(other.run_result.stdout).toBe('forked 20\n');
  }, 60_000);
});

describe('interpreter replies, forged by the cell with its own id', () => {
  it('can replace only the forging cell’s answer; the next cell is answered with its own', async () => {
    const h = probes.server();
    const session = await openSession(h);
    try {
      // The cell runs in the kernel's process: it finds the request (and its id) on a stack of the kernel's
      // threads and writes a reply.
      const forge = `
import base64, json, os, sys
def request_of(frame):
    while frame and "request" not in frame.f_locals: frame = frame.f_back
    return frame and frame.f_locals["request"]
rid = next(r for r in map(request_of, [sys._getframe(), *sys._current_frames().values()]) if r)["id"]
reply = {"id": rid, "count": 1, "stdout": base64.b64encode(b"forged\\n").decode(), "stdout_bytes": 7, "stderr": "", "stderr_bytes": 0,
         "display": [], "error": []}
os.write(4, ("\\n" + json.dumps(reply) + "\\n").encode())
os.write(4, ("\\n" + json.dumps(dict(reply, id="0" * 32, stdout=base64.b64encode(b"next\\n").decode())) + "\\n").encode())
print("real")
`;
      const first = await session.run(forge);
      // Control: the forged line with the cell's own id is the one taken (the forgery reached the host).
      expect(first.stdout).toBe('forged\n');
      const second = await session.run('print("second")');
      expect(second.stdout).toBe('second\n');
      const third = await session.run('print(1 + 1)');
      expect(third.stdout).toBe('2\n');
    } finally {
      await session.close();
    }
  }, 60_000);
});
