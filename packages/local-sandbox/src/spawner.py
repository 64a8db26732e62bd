# Starts sandboxes for the executor. Forking the API process costs 5-40 ms of its event loop per sandbox on these
# machines (page tables of a large process are copied); this small process starts them with posix_spawn (no copy)
# instead. Every stdio of a sandbox is a named pipe: the spawner creates it and opens it read-write for the
# sandbox (so opening never blocks and a reader never sees a spurious end), and the executor opens its own end by
# path. The spawner reaps the sandboxes and reports how they ended, so a kill never hits a reused pid.
#
# It is also their subreaper: bubblewrap's sandboxed child outlives bubblewrap for a moment when a sandbox is
# killed, and an orphan goes to the nearest subreaper, else to pid 1. Without this every run left a zombie for
# pid 1 to reap, which piles up when pid 1 reaps nothing (Fusebox itself as a container's pid 1: 457 seen).
#
# A sandbox is started inside its cgroup: the spawner joins the cgroup, spawns, and goes back to its own, so the
# limits hold from the first instruction and bubblewrap's cgroup namespace is rooted there (the sandbox sees
# "/", not the API's pid). Files it opens for the sandbox (bubblewrap's seccomp filter, /etc files to copy in)
# are opened here and passed as fds, so bubblewrap never needs to reach them by path (it may run as an
# unprivileged uid that cannot).
#
# A root API gives each sandbox a tmpfs mounted here, owned by the sandbox's uid: bubblewrap binds it as the
# sandbox's /tmp. A tmpfs that bubblewrap mounted itself would belong to the sandbox's user namespace, where
# root is unmapped, so the API could not write the request's files into it. These mounts live in a private mount
# namespace of the spawner's (they never show on the host, and vanish with it), and each is unmounted here as
# soon as its sandbox is up: the sandbox's bind keeps it alive, and every new sandbox copies the spawner's mount
# table, so mounts left here would make each start slower (about 90 us a mount on these machines).
#
# Every sandbox it starts inherits its RLIMIT_NOFILE, which it lowers at start to the limit it is given: the
# sandboxes' open files are then bounded in one place, whatever runs inside (driver, zygote, interpreter).
#
# argv: the executor's pid, the open-files limit.
# stdin, one JSON object per line:
#   {"op": "spawn", "id": n, "argv": [...], "env": {...}, "nice": n, "fifos": {"1": path, ...},
#    "opens": {"7": path, ...}, "cgroups": [dir, ...], "home_cgroups": [dir, ...],
#    "tmpfs": {"path": dir, "bytes": n, "uid": n} (optional), "oom_score_adj": n (optional)}
#   {"op": "kill", "id": n}
#   {"op": "unmount", "path": dir}: the sandbox holds its tmpfs now (or is gone)
# stdout, one JSON object per line:
#   {"id": n, "pid": pid} or {"id": n, "error": "..."}, then {"id": n, "exit": code, "signal": number or null}
import ctypes
import json
import os
import resource
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
# When told to stop, how long to wait for the killed sandboxes to be reaped, so none is left to pid 1 (the
# executor kills this process after 5 s).
STOP_REAP_SECONDS = 3
MS_NOSUID, MS_NODEV = 2, 4
MNT_DETACH = 2
CLONE_NEWNS = 0x00020000
MS_REC, MS_PRIVATE = 0x4000, 1 << 18
libc = ctypes.CDLL(None, use_errno=True)

lock = threading.Lock()
children = {}  # pid -> id
alive = {}  # id -> pid
has_children = threading.Condition(lock)


def send(message):
    data = (json.dumps(message) + '\n').encode()
    with lock:
        while data:
            data = data[os.write(1, data):]


def spawn(request):
    fds = []
    try:
        actions = [(os.POSIX_SPAWN_OPEN, 0, '/dev/null', os.O_RDONLY, 0)]
        for target, path in request['fifos'].items():
            os.mkfifo(path, 0o600)
            fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
            fds.append(fd)
            actions.append((os.POSIX_SPAWN_DUP2, fd, int(target)))
        for target, path in request.get('opens', {}).items():
            actions.append((os.POSIX_SPAWN_OPEN, int(target), path, os.O_RDONLY, 0))
        if 'tmpfs' in request:
            mount_tmpfs(**request['tmpfs'])
        with lock:
            join_cgroups(request.get('cgroups', []))
            # Inherited by the child from the first instruction, like the cgroup; the spawner goes back to its own.
            own_score = set_oom_score_adj(request.get('oom_score_adj'))
            try:
                pid = os.posix_spawnp(request['argv'][0], request['argv'], request['env'], file_actions=actions,
                                      setsid=True)
            finally:
                set_oom_score_adj(own_score)
                join_cgroups(request.get('home_cgroups', []))
            children[pid] = request['id']
            alive[request['id']] = pid
            has_children.notify()
        if request.get('nice'):
            try:
                os.setpriority(os.PRIO_PROCESS, pid, request['nice'])
            except OSError:
                pass
        send({'id': request['id'], 'pid': pid})
    except OSError as error:
        send({'id': request['id'], 'error': f'{error.strerror}: {error.filename or request["argv"][0]}'})
    finally:
        for fd in fds:
            os.close(fd)


def private_mounts():
    if libc.unshare(CLONE_NEWNS) != 0 or libc.mount(b'none', b'/', None, MS_REC | MS_PRIVATE, None) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f'cannot make a private mount namespace: {os.strerror(error)}')


def mount_tmpfs(path, bytes, uid):
    os.mkdir(path, 0o700)
    options = f'size={bytes},uid={uid},gid={uid},mode=0755'.encode()
    if libc.mount(b'tmpfs', path.encode(), b'tmpfs', MS_NOSUID | MS_NODEV, options) != 0:
        error = ctypes.get_errno()
        os.rmdir(path)
        raise OSError(error, os.strerror(error), path)


def unmount(request):
    # An unmount waits for an RCU grace period in the kernel (after namespace_sem is released): 8 ms at the
    # median, 38 ms at the 90th percentile on this machine under load (one a sandbox). On the request loop it
    # held up every spawn behind it; on a thread of its own (ctypes lets go of the GIL) the waits overlap, and
    # the path is unique to its sandbox, so nothing waits for it.
    # This process lives in the sandboxes' parent cgroup, whose pids.max is their whole process budget: when runs
    # fill it, no thread starts, and the RuntimeError would end this process and every sandbox with it (all
    # running runs then answered 137). The unmount then waits here instead.
    try:
        threading.Thread(target=unmount_now, args=(request['path'],), daemon=True).start()
    except RuntimeError:
        unmount_now(request['path'])


def unmount_now(path):
    libc.umount2(path.encode(), MNT_DETACH)
    try:
        os.rmdir(path)
    except OSError:
        pass


def set_oom_score_adj(score):
    """Sets this process's oom_score_adj, if `score` is not None; gives the one it had. Lowering it back needs
    root (CAP_SYS_RESOURCE): without, the spawner keeps the higher score, which only makes it an earlier victim."""
    if score is None:
        return None
    try:
        with open('/proc/self/oom_score_adj', 'r+') as adj:
            previous = int(adj.read())
            adj.seek(0)
            adj.write(str(score))
        return previous
    except OSError:
        return None


def join_cgroups(dirs):
    for directory in dirs:
        with open(os.path.join(directory, 'cgroup.procs'), 'w') as procs:
            procs.write(str(os.getpid()))


def kill(request):
    with lock:
        pid = alive.get(request['id'])
        if pid is None:
            return
        for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
            try:
                target()
            except OSError:
                pass


def reap():
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            # None now; a spawn wakes this up, and orphans adopted meanwhile are reaped within the second.
            with lock:
                if not children:
                    has_children.wait(1.0)
            continue
        with lock:
            ident = children.pop(pid, None)
            if ident is not None:
                alive.pop(ident, None)
        if ident is not None:
            send({'id': ident, 'exit': os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else None,
                  'signal': os.WTERMSIG(status) if os.WIFSIGNALED(status) else None})


def own_children():
    pids = []
    for tid in os.listdir('/proc/self/task'):
        try:
            with open(f'/proc/self/task/{tid}/children') as listing:
                pids.extend(int(pid) for pid in listing.read().split())
        except OSError:
            pass
    return pids


def stop():
    """Kills every process it started or adopted, and waits until the reaper has reaped them all."""
    deadline = time.monotonic() + STOP_REAP_SECONDS
    while time.monotonic() < deadline:
        pids = own_children()
        if not pids:
            return
        for pid in pids:
            for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
                try:
                    target()
                except OSError:
                    pass
        time.sleep(0.02)


def no_inherited_fds():
    # posix_spawn and bubblewrap pass on every descriptor not marked close-on-exec, so whatever the API process
    # inherited from what started it (a supervisor's pipe, a terminal, a socket) would reach sandboxed code,
    # which could write to it. Sandboxes get only the descriptors a spawn request names.
    for name in os.listdir('/proc/self/fd'):
        if int(name) > 2:
            try:
                os.set_inheritable(int(name), False)
            except OSError:
                pass  # the listing's own descriptor, closed by now


def cap_open_files(limit):
    """Lowers this process's RLIMIT_NOFILE, soft and hard, to `limit` (or the hard limit it has, if lower), so every
    sandbox inherits it from its first instruction. Only the initial user namespace's CAP_SYS_RESOURCE could raise
    a hard limit again, which no sandbox holds. This process keeps few files open (a sandbox's pipes, for a
    moment), far below any sane limit."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))


def main():
    no_inherited_fds()
    # Sandboxes die with their parent (bubblewrap's --die-with-parent); this process dies with the executor's,
    # which passes its pid: if that is no longer the parent, it died before the signal was armed.
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != int(sys.argv[1]):
        sys.exit(1)
    cap_open_files(int(sys.argv[2]))
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    if os.getuid() == 0:
        private_mounts()
    threading.Thread(target=reap, daemon=True).start()
    for line in sys.stdin.buffer:
        request = json.loads(line)
        {'spawn': spawn, 'kill': kill, 'unmount': unmount}[request['op']](request)
    stop()


main()
