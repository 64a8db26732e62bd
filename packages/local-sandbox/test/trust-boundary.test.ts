import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX_UID_BASE } from '../src/executor-options';
import { useExecutor } from './use-executor';

// Each probe below pairs the hostile attempt with a control the same code performs on something it owns, so a
// probe cannot pass because it failed to run.

const { executor } = useExecutor({ memoryCapMB: 256, diskLimitMB: 64, maxProcesses: 64 });

const python = (code: string, runTimeout = 10) =>
  executor().runCode({ code, language: 'python', run_timeout: runTimeout });

/** The JSON object a probe printed last. */
async function probe(code: string): Promise<Record<string, unknown>> {
  const { response } = await python(
    `import json, os, ctypes, errno\nresult = {}\n${code}\nprint(json.dumps(result))`,
  );
  expect(response.status, response.run_result?.stderr ?? '').toBe('Success');
  return JSON.parse((response.run_result?.stdout ?? '').trim().split('\n').at(-1) ?? '{}') as Record<
    string,
    unknown
  >;
}

/** The host uid of every process whose command line holds `marker`. */
function hostUidsOf(marker: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      try {
        if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)) return [];
        const uid = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
        return uid === undefined ? [] : [Number(uid)];
      } catch {
        return [];
      }
    });
}

const isRoot = process.getuid?.() === 0;

describe('the sandbox trust boundary', () => {
  it('runs code as an unprivileged host uid of its own, seen from the host while it runs', async () => {
    const marker = (n: number) => `fusebox-identity-probe-${n}-${process.pid}`;
    const runs = [1, 2].map((n) =>
      executor().runCode({ code: `exec -a ${marker(n)} sleep 4`, language: 'bash', run_timeout: 10 }),
    );
    const seen = new Map<number, number>();
    for (let attempt = 0; attempt < 60 && seen.size < 2; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      for (const n of [1, 2]) {
        const [uid] = hostUidsOf(marker(n));
        if (uid !== undefined) seen.set(n, uid);
      }
    }
    const responses = await Promise.all(runs);
    for (const { response } of responses) expect(response.status).toBe('Success');
    expect(seen.size).toBe(2);
    const uids = [...seen.values()];
    if (isRoot) {
      for (const uid of uids) expect(uid).toBeGreaterThanOrEqual(DEFAULT_SANDBOX_UID_BASE);
      expect(new Set(uids).size).toBe(2);
    } else {
      // Without root there is no other uid to switch to: the sandbox has this process's, in its own namespace.
      expect(uids).toEqual([process.getuid?.(), process.getuid?.()]);
    }
  });

  it('has no privilege inside: one mapped id, no capabilities, no access to root-only files', async () => {
    const result = await probe(`
result["uid_map"] = open("/proc/self/uid_map").read().split()
result["cap_eff"] = [l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff")][0]
try:
    os.listdir("/etc/ssl/private")
    result["root_only"] = "listed"
except OSError as e:
    result["root_only"] = errno.errorcode[e.errno]
with open("mine", "w") as f:
    f.write("x")
os.chmod("mine", 0o600)
result["own_private_file"] = open("mine").read()
`);
    expect(result.uid_map).toHaveLength(3);
    expect((result.uid_map as string[])[2]).toBe('1');
    expect(result.cap_eff).toBe('0000000000000000');
    expect(result.root_only).toBe('EACCES');
    expect(result.own_private_file).toBe('x');
  });

  it('sees kernel settings read-only and the interfaces a container runtime masks empty', async () => {
    const result = await probe(`
def attempt(path, mode):
    try:
        with open(path, mode) as f:
            if "w" in mode:
                f.write("1")
                return "written"
            return "read %d bytes" % len(f.read())
    except OSError as e:
        return errno.errorcode[e.errno]
result["sysctl"] = attempt("/proc/sys/kernel/hostname", "w")
result["sysctl_read"] = attempt("/proc/sys/kernel/ostype", "r")
result["keys"] = attempt("/proc/keys", "r")
result["timer_list"] = attempt("/proc/timer_list", "r")
result["sys"] = os.path.exists("/sys")
result["own_file"] = attempt("own", "w")
`);
    expect(result.sysctl).toMatch(/^(EROFS|EACCES)$/);
    expect(result.sysctl_read).toMatch(/^read [1-9]/);
    // Covered with /dev/null on a nodev mount: nothing to read, whether or not this kernel has them.
    for (const masked of ['keys', 'timer_list'])
      expect(result[masked]).toMatch(/^(read 0 bytes|ENOENT|EACCES)$/);
    expect(result.sys).toBe(false);
    expect(result.own_file).toBe('written');
  });

  it('refuses new namespaces, ptrace, bpf and vsock through seccomp, while ordinary calls work', async () => {
    const result = await probe(`
import socket, subprocess
libc = ctypes.CDLL(None, use_errno=True)
def call(number, *args):
    return "ok" if libc.syscall(number, *args) >= 0 else errno.errorcode[ctypes.get_errno()]
child = subprocess.Popen(["sleep", "5"])
result["ptrace_attach"] = call(101, 16, child.pid, 0, 0)
result["signal_own_child"] = "ok" if os.kill(child.pid, 0) is None else "failed"
child.kill()
result["unshare_user"] = call(272, 0x10000000)
result["clone_newuser"] = call(56, 0x10000000 | 17, 0, 0, 0, 0)
result["bpf"] = call(321, 0, 0, 0)
result["getpid"] = call(39)
def family(number):
    try:
        socket.socket(number, socket.SOCK_STREAM).close()
        return "ok"
    except OSError as e:
        return errno.errorcode[e.errno]
result["vsock"] = family(40)
result["unix"] = family(socket.AF_UNIX)
`);
    expect(result).toMatchObject({
      ptrace_attach: 'EPERM',
      signal_own_child: 'ok',
      unshare_user: 'EPERM',
      clone_newuser: 'EPERM',
      bpf: 'EPERM',
      getpid: 'ok',
      vsock: 'EAFNOSUPPORT',
      unix: 'ok',
    });
  });

  it("cannot reach the driver's memory or channels, so its timeout holds and its times are the driver's", async () => {
    const started = performance.now();
    const { response } = await python(
      `
import os, time
found = []
for pid in os.listdir("/proc"):
    if not pid.isdigit():
        continue
    for name in ("mem", "task/%s/mem" % pid):
        try:
            os.close(os.open("/proc/%s/%s" % (pid, name), os.O_RDWR))
            found.append("/proc/%s/%s" % (pid, name))
        except OSError:
            pass
    for fd in (os.listdir("/proc/%s/fd" % pid) if os.access("/proc/%s/fd" % pid, os.R_OK) else []):
        try:
            f = os.open("/proc/%s/fd/%s" % (pid, fd), os.O_WRONLY | os.O_NONBLOCK)
            os.write(f, b"ran 0 0\\nrun %d\\n" % time.time())
            os.close(f)
            found.append("/proc/%s/fd/%s" % (pid, fd))
        except OSError:
            pass
print(sorted(set(p.split("/")[2] for p in found)), flush=True)
time.sleep(5)
`,
      1,
    );
    const elapsedMs = performance.now() - started;
    expect(response.run_result?.status).toBe('TimeLimitExceeded');
    expect(response.run_result?.execution_time).toBeLessThan(3);
    expect(elapsedMs).toBeLessThan(4_000);
    // What it could write to is its own (its stdout and stderr pipes), never pid 1, the driver.
    const lastLine = (response.run_result?.stdout ?? '').trim().split('\n').at(-1) ?? '[]';
    const pids = JSON.parse(lastLine.replaceAll("'", '"')) as string[];
    expect(pids).not.toContain('1');
    expect(pids.length).toBeGreaterThan(0);
  });

  it('counts /dev/shm against the disk limit and keeps /dev read-only', async () => {
    const result = await probe(`
def fill(path, megabytes):
    written = 0
    try:
        with open(path, "wb") as f:
            for _ in range(megabytes):
                f.write(b"x" * 1024 * 1024)
                f.flush()
                written += 1
    except OSError as e:
        return "%s after %d MB" % (errno.errorcode[e.errno], written)
    return "%d MB" % written
result["shm"] = fill("/dev/shm/a", 40)
result["cwd"] = fill("b", 40)
result["dev"] = fill("/dev/c", 1)
`);
    expect(result.shm).toBe('40 MB');
    // 64 MB in all: what /dev/shm took is gone from the working directory's share.
    expect(result.cwd).toMatch(/^(ENOSPC|EFBIG) after 2\d MB$/);
    expect(result.dev).toMatch(/^(EROFS|EACCES) after 0 MB$/);
  });

  it('shows no host path, no API pid and no host cgroup inside', async () => {
    const result = await probe(`
result["mountinfo"] = open("/proc/self/mountinfo").read()
result["cgroup"] = open("/proc/self/cgroup").read()
`);
    const mountinfo = result.mountinfo as string;
    expect(mountinfo).toContain(' /tmp ');
    expect(mountinfo).not.toContain('fusebox-sandbox');
    expect(mountinfo).not.toContain(String(process.pid));
    for (const line of (result.cgroup as string).trim().split('\n')) expect(line).toMatch(/:\/$/);
  });
});
