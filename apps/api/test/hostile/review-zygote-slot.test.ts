import { describe, expect, it } from 'vitest';
import { useZygoteProbes } from './zygote-probes';

// Hostile review of a3e6984 (each forked Python run gets its own cgroup and output fifos); see useZygoteProbes.

const { forked } = useZygoteProbes(30);

describe('a forked run and the next run of its slot', () => {
  it('leaves no file behind, in any directory it can write, for the next run to find', async () => {
    // Every directory the run can create a file in (outside /proc and /sys), a marker file in each.
    const planted = await forked(`
import uuid
mark = ".left-" + uuid.uuid4().hex
planted = []
for top in [d for d in os.listdir("/") if d not in ("proc", "sys")]:
    for root, dirs, files in os.walk("/" + top):
        path = os.path.join(root, mark)
        if write(path, b"x", create=True) == "written":
            planted.append(path)
        if len(planted) > 200:
            break
result["planted"] = planted
result["seen_now"] = [os.path.exists(p) for p in planted]
`);
    expect(planted.forked).toBe(true);
    const paths = planted.planted as string[];
    // Detection: the run could write somewhere (its own /tmp at least), and sees its own markers.
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.some((path) => path.startsWith('/tmp/'))).toBe(true);
    expect(planted.seen_now).toEqual(paths.map(() => true));
    const next = await forked(`result["seen"] = [p for p in ${JSON.stringify(paths)} if os.path.lexists(p)]`);
    expect(next.hash).toBe(planted.hash);
    expect(next.seen).toEqual([]);
  });

  it("cannot raise or leave its own cgroup's limits, nor reach its zygote's", async () => {
    const tried = await forked(`
result["own"] = open("/proc/self/cgroup").read()
targets = []
for root, dirs, files in os.walk("/sys/fs/cgroup"):
    for f in files:
        if f in ("cgroup.procs", "tasks", "memory.limit_in_bytes", "memory.memsw.limit_in_bytes", "pids.max", "notify_on_release", "release_agent"):
            targets.append(os.path.join(root, f))
    if len(targets) > 200:
        break
result["targets"] = len(targets)
result["written"] = [t for t in targets if write(t, str(os.getpid()).encode() if t.endswith(("procs", "tasks")) else b"max") == "written"]
result["mkdir"] = attempt(lambda: os.mkdir("/sys/fs/cgroup/pids/escape"))
os.makedirs("/tmp/cg", exist_ok=True)
def mount(fstype, data):
    ctypes.set_errno(0)
    done = libc.mount(b"none", b"/tmp/cg", fstype, 0, data)
    return "ok" if done == 0 else errno.errorcode.get(ctypes.get_errno(), "?")
result["mounts"] = [mount(b"cgroup", b"pids"), mount(b"cgroup", b"memory"), mount(b"cgroup2", None)]
own = "/tmp/own-file"
result["control"] = write(own, b"1", create=True)
`);
    expect(tried.forked).toBe(true);
    // Detection: the probe's write helper works on a file of its own.
    expect(tried.control).toBe('written');
    // Its cgroups are all "/" (a cgroup namespace at the run's own), no hierarchy is mounted where it could
    // write, and it cannot mount one.
    expect(tried.own).toMatch(/^\d+:pids:\/$/m);
    expect(tried.written).toEqual([]);
    expect(tried.mkdir).not.toBe('ok');
    expect(tried.mounts).toEqual([
      expect.not.stringMatching(/^ok$/),
      expect.not.stringMatching(/^ok$/),
      expect.not.stringMatching(/^ok$/),
    ]);
  });

  it('gets a fresh cgroup: what a run did to its process count does not carry over', async () => {
    // A run leaves 20 processes blocked in its init's namespace at its end; the next run can still start 20.
    const first = await forked(`
kids = [subprocess.Popen(["sleep", "1000"]) for _ in range(20)]
result["started"] = len(kids)
`);
    expect(first.forked).toBe(true);
    expect(first.started).toBe(20);
    const next = await forked(`
kids = []
for _ in range(20):
    try:
        kids.append(subprocess.Popen(["sleep", "1000"]))
    except OSError as error:
        result["error"] = name(error)
        break
result["started"] = len(kids)
for k in kids:
    k.kill()
`);
    expect(next.hash).toBe(first.hash);
    expect(next.started).toBe(20);
  });
});
