import { existsSync, readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BASH_PRELUDE, outcomes, useProbes } from './sandbox-probe';

// Class 2 of the trust boundary (issue 15): the kernel's interfaces under /proc and /sys are read-only or absent,
// as a container runtime leaves them (runc's masked and read-only paths), whatever identity the code has.

const probes = useProbes();

/**
 * runc's masked paths (and Docker's /proc/interrupts), which the sandbox must cover with an empty file or directory
 * where the host has them. Restated from runc rather than imported from local-sandbox's kernel-interfaces.ts, so the
 * probe holds the sandbox to the reference, not to itself.
 */
const MASKED = [
  '/proc/acpi',
  '/proc/asound',
  '/proc/interrupts',
  '/proc/kcore',
  '/proc/keys',
  '/proc/latency_stats',
  '/proc/timer_list',
  '/proc/timer_stats',
  '/proc/sched_debug',
  '/proc/scsi',
];

describe("the kernel's interfaces, seen from sandboxed code", () => {
  it('are read-only mounts where runc makes them so, and refuse writes there, while /proc and /tmp stay writable', async () => {
    const result = await probes.python(
      'run_code',
      `
for path in ("/proc/sys", "/proc/bus", "/proc/fs", "/proc/irq", "/proc", "/tmp"):
    if os.path.exists(path):
        result[path] = "read-only" if os.statvfs(path).f_flag & os.ST_RDONLY else "writable"
result["sysctl"] = write("/proc/sys/kernel/hostname", b"sandbox")
result["irq"] = write("/proc/irq/default_smp_affinity", open("/proc/irq/default_smp_affinity", "rb").read())
result["sysrq"] = write("/proc/sysrq-trigger", b"h")
result["own_tmp"] = write("/tmp/mine", b"x", create=True)
result["own_proc"] = write("/proc/self/oom_score_adj", b"10")
`,
    );
    for (const path of ['/proc/sys', '/proc/bus', '/proc/fs', '/proc/irq']) {
      if (existsSync(path)) expect(result[path], path).toBe('read-only');
    }
    expect(result.sysctl).toMatch(/^(EACCES|EROFS)$/);
    expect(result.irq).toMatch(/^(EACCES|EROFS)$/);
    // Absent where the kernel has no magic SysRq (as here); where it has one, bound read-only.
    expect(result.sysrq).toMatch(existsSync('/proc/sysrq-trigger') ? /^(EACCES|EROFS)$/ : /^ENOENT$/);
    // Controls: /proc itself and /tmp are writable mounts, and writes there work.
    expect(result['/proc']).toBe('writable');
    expect(result['/tmp']).toBe('writable');
    expect(result.own_tmp).toBe('written');
    expect(result.own_proc).toBe('written');
  });

  it("shows runc's masked paths empty or not at all, where the host's own show content", async () => {
    const answer = await probes.run(
      'bash',
      `${BASH_PRELUDE}
for path in ${MASKED.join(' ')}; do
  if [ -d "$path" ]; then echo "$path: dir of $(ls -A "$path" | wc -l) entries"
  elif [ -e "$path" ]; then echo "$path: $(head -c 4096 "$path" 2>/dev/null | wc -c) bytes"
  else echo "$path: absent"; fi
done
echo "status: $(wc -c < /proc/self/status) bytes"
echo "uptime: $(wc -c < /proc/uptime) bytes"
`,
    );
    const seen = outcomes(answer.run_result.stdout);
    for (const path of MASKED) {
      const present = existsSync(path);
      expect(seen[path], path).toBe(
        !present ? 'absent' : statSync(path).isDirectory() ? 'dir of 0 entries' : '0 bytes',
      );
    }
    // Controls: the rest of the same /proc reads as usual, and the host's copy of a masked file has content.
    expect(seen.status).toMatch(/^[1-9]\d* bytes$/);
    expect(seen.uptime).toMatch(/^[1-9]\d* bytes$/);
    if (process.getuid?.() === 0 && existsSync('/proc/timer_list'))
      expect(readFileSync('/proc/timer_list', 'utf8').length).toBeGreaterThan(0);
  });

  it('has no /sys, and cannot mount one, a cgroup hierarchy or another /proc', async () => {
    const result = await probes.python(
      'session',
      `
result["sys"] = os.path.exists("/sys")
result["via_pid1_root"] = os.path.exists("/proc/1/root/sys")
os.mkdir("target")
result["own_mkdir"] = os.path.isdir("target")
def mount(kind, options=b""):
    return syscall(165, ctypes.c_char_p(kind), ctypes.c_char_p(b"target"), ctypes.c_char_p(kind), 0, ctypes.c_char_p(options))
result["mount_sysfs"] = mount(b"sysfs")
result["mount_cgroup"] = mount(b"cgroup", b"pids")
result["mount_cgroup2"] = mount(b"cgroup2")
result["mount_proc"] = mount(b"proc")
said = subprocess.run(["mount", "-t", "sysfs", "sysfs", "target"], capture_output=True, text=True)
result["mount_command"] = said.returncode
result["mounts_readable"] = " /proc " in open("/proc/self/mounts").read()
result["target_empty"] = os.listdir("target") == []
`,
    );
    expect(result).toMatchObject({
      sys: false,
      via_pid1_root: false,
      mount_sysfs: 'EPERM',
      mount_cgroup: 'EPERM',
      mount_cgroup2: 'EPERM',
      mount_proc: 'EPERM',
      target_empty: true,
    });
    expect(result.mount_command).not.toBe(0);
    // Controls: the directory it meant to mount on was made, and the mount table reads.
    expect(result.own_mkdir).toBe(true);
    expect(result.mounts_readable).toBe(true);
  });

  it('cannot learn where the kernel is loaded: kernel symbols and memory maps show no addresses', async () => {
    const result = await probes.python(
      'run_jupyter',
      `
def addresses(path, field):
    try:
        with open(path) as f:
            values = [line.split()[field] for line in f if line.strip()]
    except OSError as error:
        return name(error)
    return {"count": len(values), "nonzero": sum(1 for v in values if int(v.split("-")[0], 16) != 0)}
result["kallsyms"] = addresses("/proc/kallsyms", 0)
result["modules"] = addresses("/proc/modules", 5) if os.path.exists("/proc/modules") else "absent"
result["own_maps"] = addresses("/proc/self/maps", 0)
`,
    );
    // Readable as any user reads them on this host, with every kernel address zeroed (no KASLR leak).
    expect(result.kallsyms).toMatchObject({ nonzero: 0 });
    if (typeof result.modules === 'object') expect(result.modules).toMatchObject({ nonzero: 0 });
    // Control: the same parser finds the addresses of its own mappings.
    expect(result.own_maps).toMatchObject({ nonzero: expect.any(Number) as number });
    expect((result.own_maps as { nonzero: number }).nonzero).toBeGreaterThan(0);
  });
});
