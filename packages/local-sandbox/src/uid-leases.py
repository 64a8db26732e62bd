# Holds this executor's leases on blocks of sandbox uids, so that two Fusebox servers on one machine never hand
# out the same uid. A block is leased by an exclusive flock on its lease file, <dir>/uids-<first uid>-<count>:
# the kernel drops the lock when this process dies, however it dies, and this process dies with the executor
# (parent-death signal, and the end of its stdin), so a SIGKILLed server's blocks are free at once. Whoever
# leases a block next first kills what is left running as its uids (sandboxes of a dead owner that outlived it
# for a moment): from then on nothing else holds them. Servers may lease blocks of different sizes
# (FUSEBOX_SANDBOX_UID_BLOCK), whose files differ: a block is taken only while no other holder has a lease file
# overlapping it locked, checked and taken under an exclusive lock on <dir>/leases.lock, so that two holders never
# check at once.
#
# argv: directory, first uid, block size, number of blocks, owner (written into the file, for people), executor pid
# stdin, one line per request: "lease"
# stdout, one line per answer: "<first uid of the block> <processes killed>" or "none" (every block is held)
import ctypes
import fcntl
import os
import signal
import stat
import sys

PR_SET_PDEATHSIG = 1
libc = ctypes.CDLL(None, use_errno=True)
directory, first, size, blocks, owner, parent = sys.argv[1:]
first, size, blocks = int(first), int(size), int(blocks)
libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
if os.getppid() != int(parent):
    sys.exit(1)

held = {}  # first uid of a block -> fd of its lease file


def open_owned(path):
    """An fd of the regular file at `path` (created if missing) that only this user owns, or None."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError:
        return None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or info.st_nlink != 1:
        os.close(fd)
        return None
    return fd


def overlap_held(low, high):
    """Whether another holder has a lease on uids overlapping [low, high) in a file of another block size."""
    own = f'uids-{low}-{size}'
    for name in os.listdir(directory):
        parts = name.split('-')
        if name == own or len(parts) != 3 or parts[0] != 'uids' or not (parts[1] + parts[2]).isdigit():
            continue
        other_low, other_size = int(parts[1]), int(parts[2])
        if other_low >= high or other_low + other_size <= low:
            continue
        fd = open_owned(os.path.join(directory, name))
        if fd is None:
            return True  # not a lease file we can judge: keep away from it
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        finally:
            os.close(fd)  # drops the test lock, if taken
    return False


def holders(low, high):
    """
    Pids of live processes whose real, effective, saved or file-system uid is in [low, high): not zombies, which
    run nothing and which a SIGKILL already sent would count again until their parent reaps them.
    """
    found = []
    for name in os.listdir('/proc'):
        if not name.isdigit():
            continue
        try:
            with open(f'/proc/{name}/status', 'rb') as status:
                for line in status:
                    if line.startswith(b'State:') and line.split()[1] in (b'Z', b'X'):
                        break
                    if line.startswith(b'Uid:'):
                        if any(low <= int(uid) < high for uid in line.split()[1:]):
                            found.append(int(name))
                        break
        except OSError:
            continue  # gone meanwhile
    return found


def reclaim(low, high):
    """
    Kills what still runs as the block's uids; a fork in between is caught by the next round. Returns how many
    processes it killed: one still dying when the next round looks is sent SIGKILL again, but counted once.
    """
    killed = set()
    for _ in range(100):
        pids = holders(low, high)
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except OSError:
                pass
    return len(killed)


def lease():
    guard = open_owned(os.path.join(directory, 'leases.lock'))
    if guard is None:
        return 'none'
    try:
        fcntl.flock(guard, fcntl.LOCK_EX)
        return lease_guarded()
    finally:
        os.close(guard)


def lease_guarded():
    for index in range(blocks):
        low = first + index * size
        if low in held:
            continue
        if overlap_held(low, low + size):
            continue
        fd = open_owned(os.path.join(directory, f'uids-{low}-{size}'))
        if fd is None:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        held[low] = fd
        killed = reclaim(low, low + size)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f'{owner}\n'.encode(), 0)
        return f'{low} {killed}'
    return 'none'


for request in sys.stdin:
    sys.stdout.write((lease() if request.strip() == 'lease' else 'none') + '\n')
    sys.stdout.flush()
