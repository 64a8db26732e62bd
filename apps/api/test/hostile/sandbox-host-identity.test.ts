import { existsSync, readFileSync } from 'node:fs';
import { DEFAULT_SANDBOX_UID_BASE } from '@fusebox/local-sandbox/executor-options';
import { describe, expect, it } from 'vitest';
import { contained, hostProcesses, runCode, useProbes } from './sandbox-probe';

// Class 1 of the trust boundary (issue 15): the sandbox never runs as a privileged host identity. Whether the API
// runs as root (each live sandbox then has a host uid of its own) or as another user (its uid, in a user
// namespace of the sandbox's own), sandboxed code must not be root outside, nor have root's powers inside.

const probes = useProbes();

describe('sandboxed code, as to who it is on the host', () => {
  it('runs as an unprivileged host uid of its own, seen from the host, with only nobody mapped inside', async () => {
    const h = probes.server();
    const marker = (n: number) => `fusebox-hostile-identity-${n}-${process.pid}`;
    const serverUid = Number(
      /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${h.server.process.pid}/status`, 'utf8'))?.[1],
    );
    const seen = new Map<number, number>();
    const answers = await contained(h, async () => {
      const runs = [1, 2].map((n) =>
        runCode(h, 'bash', `cat /proc/self/uid_map\nexec -a ${marker(n)} sleep 3`),
      );
      for (let attempt = 0; attempt < 100 && seen.size < 2; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        for (const n of [1, 2]) {
          const [uid] = hostProcesses(marker(n)).map((process) => process.uid);
          if (uid !== undefined) seen.set(n, uid);
        }
      }
      return Promise.all(runs);
    });
    // Control: both runs were found from the host while they ran, and each printed its mapping.
    expect(seen.size).toBe(2);
    for (const [index, answer] of answers.entries()) {
      expect(answer.status).toBe('Success');
      // One uid is mapped, nobody, onto nobody of the namespace above: bubblewrap's --disable-userns nests the
      // code's user namespace in one of its own, so the host uid shows only from outside (below). No uid 0 in it.
      const [inside, parent, count] = answer.run_result.stdout.trim().split(/\s+/).map(Number);
      expect([inside, parent, count]).toEqual([65534, 65534, 1]);
      expect(seen.get(index + 1)).not.toBe(0);
    }
    const uids = [...seen.values()];
    if (serverUid === 0) {
      // Not root, not the API's own uid: a uid of its own, from a range nothing on the host owns.
      expect(serverUid).toBe(0);
      for (const uid of uids) expect(uid).toBeGreaterThanOrEqual(DEFAULT_SANDBOX_UID_BASE);
      expect(new Set(uids).size).toBe(2);
    } else {
      // Run by another user, Fusebox has no other uid to give: the sandbox is that user, never root.
      expect(uids).toEqual([serverUid, serverUid]);
    }
  });

  it("cannot read root-only files, bound in or the kernel's own, but reads the world-readable ones beside them", async () => {
    const result = await probes.python(
      'run_jupyter',
      `
result["ssl_private"] = attempt(lambda: os.listdir("/etc/ssl/private") and "listed")
result["shadow"] = read("/etc/shadow")
for path in ("/proc/kmsg", "/proc/kpageflags", "/proc/kpagecount", "/proc/slabinfo", "/proc/1/stack"):
    result[path] = read(path)
result["certificates"] = read("/etc/ssl/certs/ca-certificates.crt")
result["meminfo"] = read("/proc/meminfo")
with open("secret", "w") as f:
    f.write("mine")
os.chmod("secret", 0o600)
result["own_0600"] = read("secret")
`,
    );
    // /etc/ssl/private is root's 0700 directory, bound in with the rest of /etc/ssl.
    if (existsSync('/etc/ssl/private')) expect(result.ssl_private).toBe('EACCES');
    expect(result.shadow).toBe('ENOENT');
    // 0400 files of the kernel's: only a real root reads them; each answers EACCES.
    for (const path of [
      '/proc/kmsg',
      '/proc/kpageflags',
      '/proc/kpagecount',
      '/proc/slabinfo',
      '/proc/1/stack',
    ]) {
      if (existsSync(path)) expect(result[path], path).toBe('EACCES');
    }
    // Controls: world-readable files beside them, and a 0600 file of its own.
    expect(result.certificates).toMatch(/^read [1-9]\d* bytes$/);
    expect(result.meminfo).toMatch(/^read [1-9]\d* bytes$/);
    expect(result.own_0600).toBe('read 4 bytes');
  });

  it('cannot write kernel settings only root may write, but writes its own files, /proc ones included', async () => {
    const before = readFileSync('/proc/sys/kernel/core_pattern', 'utf8');
    const result = await probes.python(
      'session',
      `
# Each setting is written back with its own value, so that even a write that got through changes nothing.
for path in ("/proc/sys/kernel/core_pattern", "/proc/sys/kernel/hostname", "/proc/sys/vm/overcommit_memory",
             "/proc/sys/kernel/pid_max", "/proc/sys/net/ipv4/ip_forward"):
    current = open(path, "rb").read()
    result[path] = write(path, current)
result["drop_caches"] = write("/proc/sys/vm/drop_caches", b"1\\n")
result["own_file"] = write("mine", b"x", create=True)
result["own_comm"] = write("/proc/self/comm", b"probe")
result["comm_now"] = open("/proc/self/comm").read().strip()
`,
    );
    for (const path of [
      '/proc/sys/kernel/core_pattern',
      '/proc/sys/kernel/hostname',
      '/proc/sys/vm/overcommit_memory',
      '/proc/sys/kernel/pid_max',
      '/proc/sys/net/ipv4/ip_forward',
      'drop_caches',
    ])
      expect(result[path], path).toMatch(/^(EACCES|EROFS|EPERM)$/);
    expect(readFileSync('/proc/sys/kernel/core_pattern', 'utf8')).toBe(before);
    // Controls: the same write calls succeed on a file it made and on a /proc file it owns.
    expect(result.own_file).toBe('written');
    expect(result.own_comm).toBe('written');
    expect(result.comm_now).toBe('probe');
  });

  it("is refused each power of root's, while the unprivileged version of each works", async () => {
    const result = await probes.python(
      'run_code',
      `
# Lowering an OOM score, raising a hard limit, a negative nice, giving a file away, a port below 1024, uid 0.
result["oom_lower"] = write("/proc/self/oom_score_adj", b"-1000")
result["oom_raise"] = write("/proc/self/oom_score_adj", b"500")
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
result["rlimit_raise_hard"] = attempt(lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard + 1)))
result["rlimit_lower_soft"] = attempt(lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (soft - 1, hard)))
result["nice_negative"] = attempt(lambda: os.setpriority(os.PRIO_PROCESS, 0, -5))
result["nice_positive"] = attempt(lambda: os.setpriority(os.PRIO_PROCESS, 0, min(19, os.getpriority(os.PRIO_PROCESS, 0) + 5)))
open("mine", "w").close()
result["chown_root"] = attempt(lambda: os.chown("mine", 0, 0))
result["chown_other"] = attempt(lambda: os.chown("mine", 1000, 1000))
result["chmod_own"] = attempt(lambda: os.chmod("mine", 0o600))
def bind(port):
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))
result["bind_80"] = attempt(lambda: bind(80))
result["bind_8080"] = attempt(lambda: bind(8080))
result["setuid_0"] = attempt(lambda: os.setuid(0))
result["setuid_self"] = attempt(lambda: os.setuid(os.getuid()))
result["capabilities"] = [l.split()[1] for l in open("/proc/self/status") if l.startswith(("CapEff", "CapPrm", "CapBnd"))]
`,
    );
    expect(result).toMatchObject({
      oom_lower: 'EACCES',
      rlimit_raise_hard: expect.stringMatching(/^(EPERM|ValueError)$/) as string,
      nice_negative: 'EACCES',
      chown_root: expect.stringMatching(/^(EPERM|EINVAL)$/) as string,
      chown_other: expect.stringMatching(/^(EPERM|EINVAL)$/) as string,
      bind_80: 'EACCES',
      setuid_0: expect.stringMatching(/^(EPERM|EINVAL)$/) as string,
      capabilities: ['0000000000000000', '0000000000000000', '0000000000000000'],
    });
    // Controls: what any user may do, done the same way, works.
    expect(result).toMatchObject({
      oom_raise: 'written',
      rlimit_lower_soft: 'ok',
      nice_positive: 'ok',
      chmod_own: 'ok',
      bind_8080: 'ok',
      setuid_self: 'ok',
    });
  });
});
