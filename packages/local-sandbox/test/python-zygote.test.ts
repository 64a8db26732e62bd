import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { RUN_INIT } from '../src/runtime-profiles';
import { useExecutor } from './use-executor';
import { descendsFrom, forkedPython, isZygoteProcess, sleepers, zygotePids } from './zygote-helpers';

// One slot, so consecutive runs are forked from the same zygote: what one leaves, the next would see.
const { executor } = useExecutor({ concurrency: 1, pythonZygote: true, pythonZygoteMaxRuns: 1000 });
const run = (code: string, extra: Record<string, unknown> = {}) => forkedPython(executor(), code, extra);

describe('forked Python runs', () => {
  it('run forked from a zygote, with the zygote’s modules already imported', async () => {
    const { response } = await run('import sys\nprint(sys.modules["fractions"].__name__)');
    expect(response).toMatchObject({ status: 'Success', run_result: { stdout: 'fractions\n' } });
  });

  it('get their own pid namespace, an unprivileged uid, no capabilities, no_new_privs and the seccomp filter', async () => {
    const { response } = await run(
      [
        'import os',
        'status = dict(line.split(":\\t") for line in open("/proc/self/status").read().splitlines())',
        'print(os.getpid(), os.getuid(), os.getgid(), sorted(p for p in os.listdir("/proc") if p.isdigit()))',
        'print(status["CapEff"], status["CapBnd"], status["NoNewPrivs"], status["Seccomp"])',
        'for call in (lambda: os.unshare(0), lambda: os.listdir("/proc/1/fd")):',
        '    try: call(); print("allowed")',
        '    except (OSError, AttributeError) as error: print(type(error).__name__)',
      ].join('\n'),
    );
    expect(response.status).toBe('Success');
    const [ids, caps, ...calls] = (response.run_result?.stdout ?? '').trim().split('\n');
    expect(ids).toBe("2 65534 65534 ['1', '2']");
    expect(caps).toBe('0000000000000000 0000000000000000 1 2');
    // Python 3.11 has no os.unshare; the mask over pid 1's fds is the run's own (an empty read-only tmpfs).
    expect(calls).toEqual(['AttributeError', 'allowed']);
    const unshare = await run(
      'import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nprint(libc.unshare(0x20000), os.strerror(ctypes.get_errno()))',
    );
    expect(unshare.response.run_result?.stdout).toBe('-1 Operation not permitted\n');
  });

  it('get a fresh size-capped /tmp (holding the working directory and /dev/shm) and a read-only root', async () => {
    const { response } = await run(
      [
        'import os',
        'tmp = os.statvfs("/tmp")',
        'print(tmp.f_blocks * tmp.f_frsize // 2**20, os.getcwd().startswith("/tmp/"), os.path.realpath("/dev/shm"))',
        'try: open("/usr/x", "w")',
        'except OSError as error: print(error.strerror)',
      ].join('\n'),
    );
    expect(response.run_result?.stdout).toBe('512 True /tmp/.fusebox-shm\nRead-only file system\n');
  });

  it('have run-init as pid 1, whose root, cwd, memory, environment and namespaces are closed to them, and which no signal of theirs stops', async () => {
    // run-init stays in the zygote's namespaces as the zygote's uid, which is also the host uid the program's
    // own 65534 maps to: only its being undumpable, and a namespace init's immunity, keep the program out.
    const { response } = await run(
      [
        'import errno, os, signal, time',
        'def attempt(call):',
        '    try: call(); return "allowed"',
        '    except OSError as error: return errno.errorcode[error.errno]',
        'print(open("/proc/1/cmdline").read().split("\\0")[0], os.getppid())',
        'print([attempt(lambda: os.readlink(f"/proc/1/{name}")) for name in ("root", "cwd", "exe", "ns/mnt")])',
        'print([attempt(lambda: open(f"/proc/1/{name}", "rb").read(1)) for name in ("environ", "mem", "maps")])',
        'print(attempt(lambda: os.listdir("/proc/1/root/tmp")), attempt(lambda: os.open("/proc/1/ns/mnt", 0)))',
        'for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGKILL, signal.SIGSTOP): os.kill(1, sig)',
        'time.sleep(0.2)',
        'print(open("/proc/1/stat").read().rsplit(")", 1)[1].split()[0])',
        'print([attempt(lambda: os.readlink(f"/proc/self/{name}")) for name in ("root", "cwd")])',
      ].join('\n'),
    );
    expect((response.run_result?.stdout ?? '').trim().split('\n'), response.run_result?.stderr ?? '').toEqual(
      [
        `${RUN_INIT} 0`,
        "['EACCES', 'EACCES', 'EACCES', 'EACCES']",
        "['EACCES', 'EACCES', 'EACCES']",
        'EACCES EACCES',
        'S',
        "['allowed', 'allowed']",
      ],
    );
  });

  // From a hostile review: the program is pid 2, so the kernel lets it clone with CLONE_PARENT, and the child is
  // the zygote's own; the zygote, waiting for run-init alone, hung until the run's timeout.
  it('end when their program does, even with a child it made its zygote’s (CLONE_PARENT)', async () => {
    const { response } = await run(
      [
        'import ctypes, os',
        'libc = ctypes.CDLL(None, use_errno=True)',
        'pid = libc.syscall(56, 0x8000 | 17, 0, 0, 0, 0)  # clone(CLONE_PARENT | SIGCHLD)',
        'if pid == 0:',
        '    os._exit(0)',
        'print("cloned", pid > 0)',
      ].join('\n'),
      { run_timeout: 20 },
    );
    expect(response.run_result).toMatchObject({
      status: 'Finished',
      return_code: 0,
      stdout: 'cloned True\n',
    });
    expect(response.run_result?.execution_time).toBeLessThan(10);
  });

  it('have what they leave orphaned reaped by their pid 1, so no zombie holds a pid of theirs', async () => {
    const { response } = await run(
      [
        'import os, time',
        'release, held = os.pipe()',
        'for _ in range(50):',
        '    child = os.fork()',
        '    if child == 0:',
        '        if os.fork() == 0:',
        '            os.close(held)',
        '            os.read(release, 1)  # until the program lets go',
        '            os._exit(0)',
        '        os._exit(0)',
        '    os.waitpid(child, 0)',
        'def states():',
        '    found = []',
        '    for pid in filter(str.isdigit, os.listdir("/proc")):',
        '        try: found.append(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0])',
        '        except FileNotFoundError: pass  # ended meanwhile',
        '    return found',
        'print(len(states()))',
        'os.close(held)',
        'deadline = time.monotonic() + 10',
        'while len(states()) > 2 and time.monotonic() < deadline: time.sleep(0.05)',
        'print(states().count("Z"), len(states()))',
      ].join('\n'),
    );
    // Before: the program, pid 1 and the 50 orphans; after: no zombie, only the program and pid 1.
    expect(response.run_result?.stdout, response.run_result?.stderr ?? '').toBe('52\n0 2\n');
  });

  it('find the /proc masks shared within a run empty, read-only and closed to every change', async () => {
    // A run's masks of one kind are binds of one mount (python-zygote.py's cover_proc), so a mask it could
    // write or remount would open them all at once.
    const { response } = await run(
      [
        'import ctypes, errno, os',
        'libc = ctypes.CDLL(None, use_errno=True)',
        'def attempt(call):',
        '    try: call(); return "allowed"',
        '    except OSError as error: return errno.errorcode[error.errno]',
        'def remount(path):',
        '    if libc.mount(b"none", path.encode(), None, 32 | 4096, None) == 0: return "allowed"',
        '    return errno.errorcode[ctypes.get_errno()]',
        'os.mkdir("own")',
        'for path in ("/proc/1/fdinfo", "/proc/1/fd", "own"):',
        '    print(path, attempt(lambda: open(path + "/x", "w")), attempt(lambda: os.chmod(path, 0o777)),',
        '          attempt(lambda: os.utime(path)), remount(path), os.listdir(path))',
        'print("interrupts", attempt(lambda: open("/proc/interrupts").read()))',
        'print("one mount", os.stat("/proc/1/fdinfo").st_dev == os.stat("/proc/1/fd").st_dev)',
      ].join('\n'),
    );
    expect((response.run_result?.stdout ?? '').trim().split('\n'), response.run_result?.stderr ?? '').toEqual(
      [
        '/proc/1/fdinfo EROFS EROFS EROFS EPERM []',
        '/proc/1/fd EROFS EROFS EROFS EPERM []',
        "own allowed allowed allowed EPERM ['x']",
        'interrupts EACCES',
        'one mount True',
      ],
    );
  });

  it('never see what an earlier run left: files, module state, environment, processes, sockets', async () => {
    const leave = await run(
      [
        'import json, os, socket, subprocess, sys',
        'open("/tmp/left", "w").write("x"); open("/dev/shm/left", "w").write("x"); open("left", "w").write("x")',
        'json.left = 1; sys.modules["left_module"] = json; os.environ["LEFT"] = "1"',
        'subprocess.Popen(["sleep", "30"], start_new_session=True)',
        'server = socket.socket(); server.bind(("127.0.0.1", 4242)); server.listen()',
        'print("left")',
      ].join('\n'),
    );
    expect(leave.response.run_result?.stdout).toBe('left\n');
    const look = await run(
      [
        'import json, os, socket, sys',
        'print([os.path.exists(p) for p in ("/tmp/left", "/dev/shm/left", "left")])',
        'print(hasattr(json, "left"), "left_module" in sys.modules, "LEFT" in os.environ)',
        'print(sorted(p for p in os.listdir("/proc") if p.isdigit()))',
        'server = socket.socket(); server.bind(("127.0.0.1", 4242)); print("bound")',
      ].join('\n'),
    );
    expect(look.response.run_result?.stdout).toBe(
      "[False, False, False]\nFalse False False\n['1', '2']\nbound\n",
    );
  });

  // The residual of the slot's network namespace (README, "Python zygotes"): it outlives each run, and so does what
  // the kernel keeps of a run's connections. A connection closed by its client stays in TIME_WAIT for a minute,
  // its ports in /proc/net/tcp for the next run to read (the namespace's counters, /proc/net/snmp, go on too).
  it('see the TIME_WAIT connections of an earlier run of their slot (a residual), never its listening sockets', async () => {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    const leave = await run(
      [
        'import socket',
        `server = socket.socket(); server.bind(("127.0.0.1", ${port})); server.listen()`,
        `client = socket.create_connection(("127.0.0.1", ${port})); accepted, _ = server.accept()`,
        'client.close(); accepted.close(); print("closed")',
      ].join('\n'),
    );
    expect(leave.response.run_result?.stdout).toBe('closed\n');
    const look = await run(
      [
        'states = {}',
        'for line in open("/proc/net/tcp").read().splitlines()[1:]:',
        '    local, remote, state = line.split()[1:4]',
        '    for address in (local, remote):',
        '        states.setdefault(int(address.split(":")[1], 16), set()).add(state)',
        `print(sorted(states.get(${port}, ())))`,
      ].join('\n'),
    );
    // 06 is TIME_WAIT; 0A (LISTEN) would be the listening socket itself, which died with its run.
    expect(look.response.run_result?.stdout).toBe("['06']\n");
  });

  it('draw different random numbers in every run', async () => {
    const code = 'import random, os\nprint(random.random(), os.urandom(8).hex())';
    const outputs = new Set<string>();
    for (let index = 0; index < 3; index += 1)
      outputs.add((await run(code)).response.run_result?.stdout ?? '');
    expect(outputs.size).toBe(3);
  });

  it('hold the request’s files, stdin and memory limit', async () => {
    const { response } = await run(
      'import sys\nprint(open("data/in.txt").read(), sys.stdin.read())\nb = bytearray(300 * 2**20)',
      {
        files: { 'data/in.txt': Buffer.from('file').toString('base64') },
        stdin: 'stdin',
        memory_limit_MB: 100,
      },
    );
    expect(response.run_result).toMatchObject({ return_code: 1, stdout: 'file stdin\n' });
    expect(response.run_result?.stderr).toMatch(/MemoryError/);
  });

  it('run in a cgroup of their own, apart from their zygote’s, and report its CPU time', async () => {
    const [zygote] = await zygotePids(executor());
    const zygoteCpu = () => cpuacctUsageMs(Number(zygote));
    const before = zygoteCpu();
    const running = run(
      [
        'import time',
        'print(sorted(set(line.split(":")[2] for line in open("/proc/self/cgroup").read().split())))',
        'total = 0',
        'for i in range(3_000_000): total += i',
        'time.sleep(1)',
      ].join('\n'),
    );
    // This zygote's program (other tests' executors may run their own meanwhile).
    const ours = (pid: string) => isSleepingProgram(pid) && descendsFrom(Number(pid), Number(zygote));
    await waitFor(() => readdirSync('/proc').some(ours));
    const program = Number(readdirSync('/proc').find(ours));
    const controllers = ['pids', 'memory', 'cpuacct'];
    const runCgroups = controllers.map((controller) => cgroupDir(program, controller));
    const { response, cpuMs } = await running;
    const spentByZygote = zygoteCpu() - before;
    // From the host: a cgroup beside the zygote's, in every hierarchy.
    controllers.forEach((controller, index) => {
      const zygoteCgroup = cgroupDir(Number(zygote), controller);
      expect(runCgroups[index]).not.toBe(zygoteCgroup);
      expect(dirname(runCgroups[index] as string)).toBe(dirname(zygoteCgroup));
    });
    // From inside, as in a cold sandbox: the root of its own cgroup namespace.
    expect(response.run_result?.stdout).toBe("['/']\n");
    // The loop's CPU is the run's, counted in its cgroup; the zygote's own grows by the fork and its report only.
    expect(cpuMs).toBeGreaterThan(0);
    expect(spentByZygote).toBeLessThan((cpuMs ?? 0) / 4);
    // The run's cgroup is removed once the run is over.
    await vi.waitFor(() => expect(runCgroups.filter((dir) => existsSync(dir))).toEqual([]), {
      timeout: 10_000,
    });
  });

  it('cannot make their pid 1 or their zygote spend CPU for them outside their cgroup', async () => {
    // run-init and the zygote are counted in the zygote's cgroup: SIGCHLD sent to pid 1 (which it must not
    // ignore) and the program stopped and continued (which its parent, the zygote, hears of) wake them.
    const [zygote] = await zygotePids(executor());
    const before = cpuacctUsageMs(Number(zygote));
    const { response, cpuMs } = await run(
      [
        'import os, signal, time',
        'program = os.getpid()',
        'child = os.fork()',
        'if child == 0:',
        '    end = time.monotonic() + 1',
        '    while time.monotonic() < end:',
        '        os.kill(1, signal.SIGCHLD)',
        '        os.kill(program, signal.SIGSTOP)',
        '        os.kill(program, signal.SIGCONT)',
        '    os._exit(0)',
        'os.waitpid(child, 0)',
        'print("done")',
      ].join('\n'),
    );
    const spentOutside = cpuacctUsageMs(Number(zygote)) - before;
    expect(response.run_result?.stdout, response.run_result?.stderr ?? '').toBe('done\n');
    expect(cpuMs).toBeGreaterThan(500);
    expect(spentOutside).toBeLessThan((cpuMs ?? 0) / 10);
  });

  it('write their output to fifos made for them alone, never to one an earlier run owned', async () => {
    const code = [
      'import os',
      'print(hash("fusebox"), *(os.stat(f"/tmp/.fusebox-{name}").st_ino for name in ("stdout", "stderr")))',
    ].join('\n');
    const [first, second] = [await run(code), await run(code)].map((execution) =>
      (execution.response.run_result?.stdout ?? '').trim().split(' '),
    );
    // Detection: the same zygote forked both (the hash seed is the zygote's), so the fifos are the zygote's.
    expect(first?.[0]).toBe(second?.[0]);
    expect(first).toHaveLength(3);
    expect(second?.[1]).not.toBe(first?.[1]);
    expect(second?.[2]).not.toBe(first?.[2]);
  });

  it('are killed alone at their timeout, all their processes with them, and their zygote forks the next run', async () => {
    const seed = 'print(hash("fusebox"))';
    const before = await run(seed);
    const { response } = await run(
      [
        'import subprocess, time',
        'subprocess.Popen(["sleep", "30"], start_new_session=True)',
        'print("started", flush=True)',
        'time.sleep(30)',
      ].join('\n'),
      { run_timeout: 0.5 },
    );
    expect(response.run_result).toMatchObject({
      status: 'TimeLimitExceeded',
      return_code: null,
      stdout: 'started\n',
    });
    // The same zygote (its hash seed), and nothing of the killed run left: its detached sleep included.
    const next = await run(
      `${seed}\nimport os\nprint(sorted(p for p in os.listdir("/proc") if p.isdigit()))`,
    );
    expect(next.response.run_result?.stdout).toBe(`${before.response.run_result?.stdout}['1', '2']\n`);
    expect(sleepers(30)).toEqual([]);
  });

  it('survive a killed zygote: before a run, the run goes cold; during one, it ends killed, never re-run', async () => {
    const pids = await zygotePids(executor());
    expect(pids).toHaveLength(1);
    for (const pid of pids) process.kill(pid, 'SIGKILL');
    const after = await executor().runCode({ code: 'print("after")', language: 'python' });
    expect(after.response).toMatchObject({ status: 'Success', run_result: { stdout: 'after\n' } });

    const running = run('import time\nprint("started", flush=True)\ntime.sleep(1)\nprint("finished")');
    // This process's program: other test files' executors may run sleeping programs of their own meanwhile.
    await waitFor(() =>
      readdirSync('/proc').some((pid) => isSleepingProgram(pid) && descendsFrom(Number(pid), process.pid)),
    );
    for (const pid of await zygotePids(executor(), { waitForIdle: false })) process.kill(pid, 'SIGKILL');
    // The program may have had a hand in its zygote's death (their memory is charged together), so the run is
    // not given a second attempt: it answers as a killed run, with what it printed.
    const { response } = await running;
    expect(response).toMatchObject({
      status: 'Failed',
      run_result: { status: 'Finished', return_code: 137, stdout: 'started\n' },
    });
    const next = await run('print("next")');
    expect(next.response).toMatchObject({ status: 'Success', run_result: { stdout: 'next\n' } });
  });
});

/** Where process `pid`'s cgroup of `controller` is on the host. */
function cgroupDir(pid: number, controller: string): string {
  const line = readFileSync(`/proc/${pid}/cgroup`, 'utf8')
    .split('\n')
    .find((entry) => entry.split(':')[1] === controller);
  if (line === undefined) throw new Error(`process ${pid} has no ${controller} cgroup`);
  return join('/sys/fs/cgroup', controller, line.slice(line.indexOf(':', line.indexOf(':') + 1) + 1));
}

/** CPU time used in process `pid`'s cpuacct cgroup so far, in ms. */
function cpuacctUsageMs(pid: number): number {
  return Number(readFileSync(join(cgroupDir(pid, 'cpuacct'), 'cpuacct.usage'), 'utf8')) / 1e6;
}

/** A program forked from a zygote, asleep in `time.sleep` (so past what it printed before). */
function isSleepingProgram(pid: string): boolean {
  try {
    return (
      isZygoteProcess(pid) &&
      readFileSync(`/proc/${pid}/status`, 'utf8').includes('Seccomp:\t2') &&
      readFileSync(`/proc/${pid}/wchan`, 'utf8') === 'hrtimer_nanosleep'
    );
  } catch {
    return false;
  }
}

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}
