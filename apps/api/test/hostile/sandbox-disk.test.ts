import { describe, expect, it } from 'vitest';
import { useProbes } from './sandbox-probe';

// Class 6 of the trust boundary (issue 15): every writable place counts against the disk limit, /dev/shm
// included, and the space is the next run's again. The hostile server gives each sandbox 64 MB.

const probes = useProbes();
const DISK_MB = 64;

/** Python: `fill(path)` writes 1 MiB chunks to a new file until a write fails; what failed and how far it got. */
const FILL = `
def fill(path):
    chunk = b"x" * (1 << 20)
    written = 0
    try:
        with open(path, "wb", buffering=0) as f:
            while written < ${4 * DISK_MB}:
                f.write(chunk)
                written += 1
        return {"error": "none", "mb": written}
    except OSError as error:
        return {"error": name(error), "mb": written}
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
`;

describe('sandboxed code, as to the disk it may fill', () => {
  it('fills cwd, /tmp, home and /dev/shm only up to one shared limit, each refused once it is spent', async () => {
    const result = await probes.python(
      'run_code',
      `${FILL}
result["cwd_is_in_tmp"] = os.getcwd().startswith("/tmp/")
result["home"] = os.environ["HOME"]
# Control: a small write works in each place before any is full.
for place in (".", "/tmp", os.environ["HOME"], "/dev/shm"):
    result["small " + place] = write(os.path.join(place, "small"), b"x" * 4096, create=True)
    os.unlink(os.path.join(place, "small"))
for place in (".", "/tmp", os.environ["HOME"], "/dev/shm"):
    result["fill " + place] = fill(os.path.join(place, "fill"))
    # While that place is full, the others are too: one limit for all.
    result["others " + place] = sorted(set(write(os.path.join(other, "more"), b"x" * (1 << 20), create=True)
                                           for other in (".", "/tmp", "/dev/shm") if other != place))
    os.unlink(os.path.join(place, "fill"))
from multiprocessing import shared_memory
def shm(mb):
    segment = shared_memory.SharedMemory(create=True, size=mb << 20)
    try:
        segment.buf[-1] = 1
        segment.buf[::4096] = b"x" * len(segment.buf[::4096])
    finally:
        segment.close()
        segment.unlink()
    return "ok"
result["posix_shm_small"] = attempt(lambda: shm(1))
result["posix_shm_past_limit"] = attempt(lambda: shm(${2 * DISK_MB}))
`,
    );
    expect(result).toMatchObject({ cwd_is_in_tmp: true, home: '/tmp' });
    for (const place of ['.', '/tmp', '/tmp', '/dev/shm']) {
      expect(result[`small ${place}`], place).toBe('written');
      const filled = result[`fill ${place}`] as { error: string; mb: number };
      expect(filled.error, place).toMatch(/^(ENOSPC|EFBIG)$/);
      expect(filled.mb, place).toBeLessThanOrEqual(DISK_MB);
      expect(filled.mb, place).toBeGreaterThanOrEqual(DISK_MB - 8);
      expect(result[`others ${place}`], place).toEqual(['ENOSPC']);
    }
    expect(result.posix_shm_small).toBe('ok');
    // A shared-memory segment past the limit cannot even be sized (the file-size limit is the disk's).
    expect(result.posix_shm_past_limit).toMatch(/^(EFBIG|ENOSPC)$/);
  });

  it('gives the space back to the next run, whichever door it comes in by', async () => {
    const fillAndLeave = `${FILL}
result["filled"] = fill("/tmp/left-behind")
result["shm"] = write("/dev/shm/left-behind", b"x", create=True)
`;
    const first = await probes.python('run_jupyter', fillAndLeave);
    expect((first.filled as { error: string }).error).toMatch(/^(ENOSPC|EFBIG)$/);
    const next = await probes.python(
      'session',
      `${FILL}
result["left"] = [os.path.exists(p) for p in ("/tmp/left-behind", "/dev/shm/left-behind")]
result["filled"] = fill("again")
`,
    );
    expect(next.left).toEqual([false, false]);
    expect((next.filled as { mb: number }).mb).toBeGreaterThanOrEqual(DISK_MB - 8);
  });

  it('finds no writable place outside the limit: every other mount and directory refuses a new file', async () => {
    const result = await probes.python(
      'session',
      `
mounts = sorted(set(line.split()[4] for line in open("/proc/self/mountinfo")))
result["mounts"] = mounts
result["created"] = {}
for point in mounts:
    target = os.path.join(point if os.path.isdir(point) else os.path.dirname(point), "fusebox-probe")
    outcome = write(target, b"x", create=True)
    result["created"][point] = outcome
    if outcome == "written":
        os.unlink(target)
# Every directory it may write to, outside /proc and /tmp (walked, not only the mount points). Below a directory
# of a read-only mount with no mount point under it, nothing can be written: that subtree is not walked (all of
# /usr took over a minute on a loaded machine).
writable = []
walked = 0
for root in [p for p in os.listdir("/") if p not in ("proc", "tmp")]:
    for directory, subdirectories, _ in os.walk("/" + root):
        walked += 1
        if os.access(directory, os.W_OK):
            writable.append(directory)
        below = directory.rstrip("/") + "/"
        if os.statvfs(directory).f_flag & os.ST_RDONLY and not any(m.startswith(below) for m in mounts):
            subdirectories.clear()
result["writable_directories"] = writable
result["walked"] = walked
result["dev_write"] = write("/dev/fusebox-probe", b"x", create=True)
result["full"] = write("/dev/full", b"x")
result["null"] = write("/dev/null", b"x" * (1 << 20))
`,
      // It walks all of /usr: seconds on a loaded machine.
      60,
    );
    const created = result.created as Record<string, string>;
    for (const [point, outcome] of Object.entries(created)) {
      if (point === '/tmp') expect(outcome).toBe('written');
      else expect(outcome, point).toMatch(/^(EROFS|EACCES|ENOENT|ENOTDIR|EPERM)$/);
    }
    expect(result.writable_directories).toEqual([]);
    expect(result.walked).toBeGreaterThan(0);
    expect(result.dev_write).toMatch(/^(EROFS|EACCES)$/);
    // Controls: it saw the mounts it has (/tmp among them), and the devices it writes to behave as devices.
    expect(result.mounts).toEqual(expect.arrayContaining(['/', '/tmp', '/proc', '/usr', '/dev']));
    expect(result.full).toBe('ENOSPC');
    expect(result.null).toBe('written');
  });
});
