import { execFileSync } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { overlapping, probePython, useProbes } from './sandbox-probe';

// Class 6 of the trust boundary (issue 15): the host's files, pids, paths, environment and name do not show inside.
// The server is started with canary secrets in its environment, which must reach no sandbox.

const CANARY = `canary-${process.pid}-${Date.now()}`;
const probes = useProbes({ HOSTILE_CANARY_SECRET: CANARY, FUSEBOX_HOSTILE_CANARY: CANARY });

/**
 * Where `rustc` keeps its toolchain for the user `pid` runs as (the server), as the server asks it: '/usr' when
 * that user has none of its own (Debian's), or none at all.
 */
function serverRustSysroot(pid: number): string {
  const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  try {
    return execFileSync('rustc', ['--print', 'sysroot'], { encoding: 'utf8', uid, gid: uid }).trim();
  } catch {
    return '/usr';
  }
}

describe('sandboxed code, as to what it learns of the host', () => {
  it('sees only its own processes in /proc, neither the API nor a concurrent run', async () => {
    const h = probes.server();
    const marker = (n: number) => `fusebox-hostile-leak-${n}-${process.pid}`;
    const body = (n: number) => `
child = subprocess.Popen(["bash", "-c", "exec -a ${marker(n)} sleep 30"])
# Wait until its marked child is up, then long enough for the other run's to be up too (the host checks).
for _ in range(200):
    if os.path.exists("/proc/%d/cmdline" % child.pid) and open("/proc/%d/cmdline" % child.pid, "rb").read().startswith(b"${marker(n)}"):
        break
    time.sleep(0.05)
time.sleep(2)
commands = {}
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    try:
        commands[pid] = open("/proc/%s/cmdline" % pid, "rb").read().replace(b"\\0", b" ").decode()
    except OSError:
        pass
child.kill()
result["pids"] = sorted(int(p) for p in commands)
result["commands"] = sorted(commands.values())
result["own_marker"] = any(c.startswith("${marker(n)}") for c in commands.values())
`;
    const { results, seen } = await overlapping(
      h,
      [1, 2].map((n) => [marker(n), () => probePython(h, 'run_code', body(n))]),
    );
    expect(seen).toBe(2);
    const serverPid = String(h.server.process.pid);
    for (const [index, result] of results.entries()) {
      const commands = (result.commands ?? []) as string[];
      const other = marker(2 - index);
      expect(commands.some((command) => command.includes(other))).toBe(false);
      expect(commands.some((command) => /fusebox serve|node|vitest|postgres/.test(command))).toBe(false);
      expect(commands.some((command) => command.includes(serverPid))).toBe(false);
      // Its driver, its Python, its bash child: a handful, from pid 1.
      expect((result.pids as number[])[0]).toBe(1);
      expect((result.pids as number[]).length).toBeLessThanOrEqual(5);
      // Control: it found its own marked process the same way.
      expect(result.own_marker).toBe(true);
    }
  });

  it('finds no host path, checkout or API pid in its mount table, toolchains outside /usr included', async () => {
    const h = probes.server();
    const serverPid = h.server.process.pid;
    const serverCwd = readlinkSync(`/proc/${serverPid}/cwd`);
    const result = await probes.python(
      'run_jupyter',
      `
result["mountinfo"] = open("/proc/self/mountinfo").read()
result["mounts"] = open("/proc/self/mounts").read()
result["cwd"] = os.getcwd()
result["checkout"] = [os.path.exists(p) for p in ("/work", "${serverCwd}", "/root", "/home")]
`,
    );
    const table = `${result.mountinfo as string}\n${result.mounts as string}`;
    const lines = (result.mountinfo as string).trim().split('\n');
    expect(table).not.toContain('/work');
    expect(table).not.toContain(serverCwd);
    expect(table).not.toContain(`fusebox-sandbox-${serverPid}`);
    expect(table).not.toContain(`fusebox-toolchains/${serverPid}`);
    expect(table.split(/[\s/]/)).not.toContain(String(serverPid));
    expect(result.checkout).toEqual([false, false, false, false]);
    // A bind mount's root field is its path in the source filesystem, so a toolchain bound straight from a
    // private directory (rustup in /root) would name it: toolchains are bound from a copy at a neutral path.
    const roots = lines.map((line) => line.split(' ')[3] as string);
    expect(roots.filter((root) => /^\/(root|home)(\/|$)/.test(root))).toEqual([]);
    for (const root of roots)
      expect(root).toMatch(
        /^\/(newroot|usr|etc|bus|fs|irq|sys|null|zero|full|random|urandom|tty|var\/lib\/fusebox\/toolchains)?(\/|$)/,
      );
    // Control: where the server's user has a toolchain outside /usr (rustup), the table does hold its mount.
    const sysroot = serverRustSysroot(serverPid as number);
    if (sysroot !== '/usr' && !sysroot.startsWith('/usr/'))
      expect(lines.map((line) => line.split(' ')[4])).toContain('/opt/rust');
    // Controls: the table was read and names its own mounts, and its own working directory.
    expect(lines.length).toBeGreaterThan(5);
    expect(table).toContain(' /tmp ');
    expect(result.cwd).toMatch(/^\/tmp\/tmp\w+$/);
  });

  it('inherits no variable of the server, secrets included, by any door or through the driver', async () => {
    const leaks = (env: string) =>
      env
        .split('\0')
        .filter(
          (entry) => /^(FUSEBOX_|DATABASE_URL|PG|HOSTILE_|NODE_|npm_)/.test(entry) || entry.includes(CANARY),
        );
    for (const route of ['run_code', 'run_jupyter', 'session'] as const) {
      const result = await probes.python(
        route,
        `
result["environ"] = "\\0".join("%s=%s" % item for item in os.environ.items())
result["driver"] = attempt(lambda: open("/proc/1/environ", "rb").read().decode())
os.environ["MINE"] = "${route}"
result["child_sees_own"] = subprocess.run(["sh", "-c", "echo $MINE"], capture_output=True, text=True).stdout.strip()
`,
      );
      expect(leaks(result.environ as string), route).toEqual([]);
      // pid 1's variables, or EACCES where pid 1 is a forked run's run-init.
      expect(leaks(result.driver as string), route).toEqual([]);
      expect(result.environ as string, route).toContain('PATH=');
      // Control: a variable set by the code itself does reach its child.
      expect(result.child_sees_own, route).toBe(route);
    }
    // Control: the server itself holds the canary, so a leak would have shown.
    const serverEnv = readFileSync(`/proc/${probes.server().server.process.pid}/environ`, 'utf8');
    expect(serverEnv).toContain(CANARY);
  });

  it("has a host name, users and hosts file of its own, not the host's, and cannot set the name", async () => {
    const result = await probes.python(
      'run_code',
      `
result["nodename"] = os.uname().nodename
result["socket_hostname"] = socket.gethostname()
result["proc_hostname"] = open("/proc/sys/kernel/hostname").read().strip()
result["sethostname"] = attempt(lambda: socket.sethostname("host"))
result["etc"] = {p: os.path.exists(p) for p in ("/etc/hostname", "/etc/machine-id", "/etc/shadow", "/etc/sudoers", "/etc/resolv.conf")}
result["passwd"] = open("/etc/passwd").read()
result["group"] = open("/etc/group").read()
result["hosts"] = open("/etc/hosts").read()
import pwd
result["whoami"] = pwd.getpwuid(os.getuid()).pw_name
`,
    );
    expect(result.nodename).toBe('sandbox');
    expect(result.nodename).not.toBe(hostname());
    expect(result.socket_hostname).toBe('sandbox');
    expect(result.proc_hostname).toBe('sandbox');
    expect(result.sethostname).toBe('EPERM');
    expect(result.etc).toEqual({
      '/etc/hostname': false,
      '/etc/machine-id': false,
      '/etc/shadow': false,
      '/etc/sudoers': false,
      '/etc/resolv.conf': false,
    });
    expect(result.passwd).toBe('nobody:x:65534:65534:nobody:/tmp:/usr/sbin/nologin\n');
    expect(result.group).toBe('nogroup:x:65534:\n');
    expect(result.hosts).toBe('127.0.0.1 localhost\n::1 localhost\n');
    // Control: the synthetic passwd answers for its own uid.
    expect(result.whoami).toBe('nobody');
  });
});
