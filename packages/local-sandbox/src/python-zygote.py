# A Python zygote: an interpreter started once, with a list of modules imported, that forks one run of
# model-written code per job, so a run pays for a fork instead of an interpreter's start-up and its imports.
#
# It runs in a bubblewrap sandbox of its own (one per executor slot, so runs of one zygote never overlap), as
# uid 0 of that sandbox's user namespace with CAP_SYS_ADMIN and CAP_SETFCAP and nothing else: enough to give each run its own
# namespaces and mounts. It holds no user data: the host stages a job's files in the zygote's working
# directory, and only the forked run reads them. Each job:
#
#   zygote ── fork, into a new pid namespace ──> init (pid 1 of the run): waits until the host has moved it
#                 into the run's own cgroup (limits and accounting apart from the zygote's); new mount, ipc, uts
#                 and cgroup namespaces (the slot's network namespace is reused: runs of one slot never overlap, and
#                 every process of a run is dead before the next); a fresh size-capped tmpfs on /tmp (which holds
#                 the working directory and /dev/shm), the staged files copied in, a fresh /proc covered as
#                 bubblewrap covered the zygote's (its own /proc/1 entries too); then a user namespace of its own
#                 in which it is uid 65534, no capabilities, no_new_privs and the sandboxes' seccomp filter; it
#                 reaps, and ends the run (and so every process of it) when the program's main process ends
#                 └─ fork ──> the program: a new session, rlimits, reseeded random sources; then the code runs as
#                             `python3 file.py` would run it.
#
# With run-init built ("runInit", see run-init.c), the run's pid 1 is that small program instead, spawned without
# copying the zygote (vfork and exec), and the program is the zygote's own child, forked into the new pid
# namespace as pid 2: it sets the run up itself as the init above would, then runs the code. run-init only reaps
# what the program leaves orphaned; once the program has ended, the zygote kills it, and with it the namespace.
# One copy of the zygote per run instead of two: its page tables, its faults and its exit.
#
# Its source is read from fd 20 (see python-zygotes.ts), so its argv stays short: every process a run forks
# carries that argv. argv[1], JSON: {"modules": [...], "fileSizeBytes": n, "diskBytes": n, "maxProcesses": n or null,
#                 "stdio": {"stdin": name, "stdout": name, "stderr": name}, "runInit": path or null}; fd 7 holds
#                 the seccomp filter (BPF).
# fd 3, one JSON line per job: {"source": absolute path of the staged program, "memoryLimitBytes": n or null};
# then "go" once the host has moved the run's first process (the zygote's one Python child: the init, or with
# run-init the program) into the run's cgroup.
# fd 4: "ready" when a job may be staged, then per job "run <t>" (the run is forked) and "ran <status> <t>"
# (status as a shell reports it: 128 + the signal for a killed program), t in seconds of the wall clock.
# The run's stdout and stderr are fifos the zygote makes afresh for each run (the host opens them after
# "ready"): the run owns their inodes, so none of them is ever given to a later run.
#
# With "sessions": true in its configuration, the zygote forks stateful interpreter sessions instead (kernel.py,
# read from fd 21, loaded and its IPython shell made before the first fork), many at a time: each is a run as
# above with a network namespace of its own too (loopback only), whose program serves cells on the session's
# own control and event fifos (fds 3 and 4 of kernel.py), which the zygote makes afresh per session. Per session:
# "ready" (its fifos exist and may be opened), a job line "{}" (the host holds both fifos open), "forked <pid>"
# (the init, pid as the zygote sees it), the host's "go" (the init is in the session's cgroup), and at any time
# later "ended <pid> <status>" once that init has ended. Sessions of one zygote share its host uid and nothing
# else: every namespace, the tmpfs, the cgroup and the fifos are their own.
import ctypes
import fcntl
import gc
import json
import os
import resource
import select
import signal
import socket
import stat
import struct
import sys
import time

CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x02000000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
PID_NAMESPACE_FD = 8
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 0x4000, 1 << 18
MNT_DETACH = 2
PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP = 24, 38, 22
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
SECCOMP_MODE_FILTER = 2
SECCOMP_FD = 7
SANDBOX_ID = 65534
KERNEL_FD = 21
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 1
SESSION_FIFOS = ('.fusebox-session-control', '.fusebox-session-events')
SHARED_MEMORY_DIR = '/tmp/.fusebox-shm'

libc = ctypes.CDLL(None, use_errno=True)


class SockFprog(ctypes.Structure):
    _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.c_char_p)]


class CapHeader(ctypes.Structure):
    _fields_ = [('version', ctypes.c_uint32), ('pid', ctypes.c_int)]


class CapData(ctypes.Structure):
    _fields_ = [('effective', ctypes.c_uint32), ('permitted', ctypes.c_uint32), ('inheritable', ctypes.c_uint32)]


def check(result, what):
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, f'{what}: {os.strerror(error)}')


def mount(source, target, fstype, flags, data=None):
    check(libc.mount(source.encode(), target.encode(), fstype and fstype.encode(), flags,
                     data and data.encode()), f'mount {target}')


def read_all(fd):
    chunks = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    return b''.join(chunks)


def proc_covers():
    """
    What bubblewrap mounted over the zygote's /proc, deepest last, to be done again over a run's own /proc: each
    a target and its kind: 'proc' (a kernel interface left visible, read-only), or a masked 'directory' or 'file'.
    """
    covers = []
    with open('/proc/self/mountinfo') as mountinfo:
        for line in mountinfo:
            fields = line.split()
            target, fstype = fields[4], fields[fields.index('-') + 1]
            if target.startswith('/proc/'):
                kind = 'proc' if fstype == 'proc' else 'directory' if os.path.isdir(target) else 'file'
                covers.append((target, kind))
    return covers


def cover_proc(covers):
    # The first mask of each kind is made read-only; the others are bound from it, and a bind keeps the
    # read-only flag of its source: one mount each instead of two (and one tmpfs per run instead of one per mask).
    masks = {}
    for target, kind in covers:
        if not os.path.lexists(target):
            continue
        if kind in masks:
            mount(masks[kind], target, None, MS_BIND)
            continue
        if kind == 'proc':
            mount(target, target, None, MS_BIND | MS_REC)
        elif kind == 'directory':
            mount('tmpfs', target, 'tmpfs', MS_NOSUID | MS_NODEV | MS_NOEXEC, 'size=4096,mode=0555')
        else:  # /dev/null over a masked file
            mount('/dev/null', target, None, MS_BIND)
        mount('none', target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)
        if kind != 'proc':
            masks[kind] = target


def copy_tree(source_fd, target):
    """Copies the staged files (regular files and directories only, never following a link) into `target`."""
    for name in os.listdir(source_fd):
        info = os.stat(name, dir_fd=source_fd, follow_symlinks=False)
        path = os.path.join(target, name)
        if stat.S_ISDIR(info.st_mode):
            os.mkdir(path, 0o755)
            child = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=source_fd)
            try:
                copy_tree(child, path)
            finally:
                os.close(child)
        elif stat.S_ISREG(info.st_mode):
            src = os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=source_fd)
            dst = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, stat.S_IMODE(info.st_mode))
            try:
                while os.sendfile(dst, src, None, 1 << 20):
                    pass
            finally:
                os.close(src)
                os.close(dst)


def new_tmp(config, workdir):
    """In the run's init: a fresh size-capped /tmp (with /dev/shm's directory), the staged files copied in."""
    staged = os.open(workdir, os.O_RDONLY | os.O_DIRECTORY)
    mount('tmpfs', '/tmp', 'tmpfs', MS_NOSUID | MS_NODEV, f'size={config["diskBytes"]},mode=0755')
    os.mkdir(SHARED_MEMORY_DIR)
    os.chmod(SHARED_MEMORY_DIR, 0o1777)
    os.makedirs(workdir)
    copy_tree(staged, workdir)
    os.close(staged)


def new_proc(covers):
    mount('proc', '/proc', 'proc', MS_NOSUID | MS_NODEV | MS_NOEXEC)
    cover_proc(covers)


def prepare_run_root(config, workdir, covers):
    """In the run's init: a fresh /tmp holding the staged files, a fresh /proc, and the run's stdio on 0-2."""
    stdio = config['stdio']
    stdin = os.open(f'/tmp/{stdio["stdin"]}', os.O_RDONLY | os.O_NOFOLLOW)
    stdout = os.open(f'/tmp/{stdio["stdout"]}', os.O_WRONLY)
    stderr = os.open(f'/tmp/{stdio["stderr"]}', os.O_WRONLY)
    new_tmp(config, workdir)
    # The program's stdin is a file in its own /tmp, as in a cold sandbox: seekable, and its own to change.
    copy = os.open(f'/tmp/{stdio["stdin"]}', os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
    while os.sendfile(copy, stdin, None, 1 << 20):
        pass
    os.close(stdin)
    os.lseek(copy, 0, os.SEEK_SET)
    # The output pipes keep their names in the run's /tmp, as in a cold sandbox (bound from the zygote's /tmp,
    # through the old /proc, which still shows this process).
    for name, fd in ((stdio['stdout'], stdout), (stdio['stderr'], stderr)):
        os.close(os.open(f'/tmp/{name}', os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        mount(f'/proc/self/fd/{fd}', f'/tmp/{name}', None, MS_BIND)
    new_proc(covers)
    for fd, target in ((copy, 0), (stdout, 1), (stderr, 2)):
        os.dup2(fd, target)
        os.close(fd)


def drop_privileges(seccomp_filter, own_network=False):
    """
    In the run's init, once its root is set up: everything the zygote could do, the run can no longer. With
    `own_network`, the run also gets a network namespace of its own with loopback up (made in its own user
    namespace, the only one in which it can bring an interface up).
    """
    check(libc.unshare(CLONE_NEWUSER), 'unshare(CLONE_NEWUSER)')
    for name, content in (('setgroups', b'deny'), ('uid_map', f'{SANDBOX_ID} 0 1'.encode()),
                          ('gid_map', f'{SANDBOX_ID} 0 1'.encode())):
        # Unbuffered: each map must be written in one write(2), and Python's file objects cost more than the write.
        map_file = os.open(f'/proc/self/{name}', os.O_WRONLY)
        try:
            os.write(map_file, content)
        finally:
            os.close(map_file)
    if own_network:
        check(libc.unshare(CLONE_NEWNET), 'unshare(CLONE_NEWNET)')
        loopback_up()
    cap = 0
    while libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0:
        cap += 1
    check(libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), 'clear ambient capabilities')
    no_caps = (CapData * 2)()
    check(libc.capset(ctypes.byref(CapHeader(0x20080522, 0)), no_caps), 'capset')
    check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 'no_new_privs')
    program = SockFprog(len(seccomp_filter) // 8, seccomp_filter)
    check(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(program), 0, 0), 'seccomp')


def loopback_up():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        request = struct.pack('16sH', b'lo', 0)
        flags = struct.unpack('16sH', fcntl.ioctl(probe, SIOCGIFFLAGS, request + b'\0' * 22)[:18])[1]
        fcntl.ioctl(probe, SIOCSIFFLAGS, struct.pack('16sH', b'lo', flags | IFF_UP) + b'\0' * 22)


def limit_program(config, memory_limit_bytes, kept_fds=3):
    """In the program's process, last before its code: its own session, rlimits, and no descriptor from kept_fds."""
    os.setsid()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (config['fileSizeBytes'], config['fileSizeBytes']))
    if config['maxProcesses'] is not None:
        resource.setrlimit(resource.RLIMIT_NPROC, (config['maxProcesses'], config['maxProcesses']))
    if memory_limit_bytes is not None:
        resource.setrlimit(resource.RLIMIT_AS, (memory_limit_bytes, memory_limit_bytes))
    os.closerange(kept_fds, os.sysconf('SC_OPEN_MAX'))


def exit_status(wait_status):
    code = os.waitstatus_to_exitcode(wait_status)
    return 128 - code if code < 0 else code


def wait_for_go(jobs):
    """Blocks until the host says the run may start: it has moved this process into the run's own cgroup."""
    line = jobs.readline()
    if line != b'go\n':
        raise OSError(f'the host said {line!r}, not go')


def isolate_run(config, jobs, workdir, covers, seccomp_filter):
    """In the run's first process, once the host has moved it into the run's cgroup: the run's own root, then no
    privilege left."""
    wait_for_go(jobs)
    jobs.close()
    os.close(4)
    os.close(PID_NAMESPACE_FD)
    # A cgroup namespace rooted at the run's cgroup: the run sees its cgroups as "/", as a cold sandbox does.
    check(libc.unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP), 'unshare')
    prepare_run_root(config, workdir, covers)
    # Out of the zygote's staging directory (under the run's /tmp now), so that no process of the run, /proc/1/cwd
    # included, reaches the directory the zygote stages the next run in and must be able to empty.
    os.chdir(workdir)
    drop_privileges(seccomp_filter)


def run_init(config, job, jobs, workdir, covers, seccomp_filter):
    """Pid 1 of the run without run-init: sets its root up, forks the program, reaps, and ends the run with it."""
    # As a cold sandbox's driver is, it is then the program's uid in the program's user namespace, with no
    # capabilities: its memory and descriptors are closed to the program by the covers over /proc/1 (as
    # bubblewrap covered the zygote's) and by the seccomp filter (ptrace, process_vm_*), and nothing more.
    isolate_run(config, jobs, workdir, covers, seccomp_filter)
    program = os.fork()
    if program == 0:
        limit_program(config, job['memoryLimitBytes'])
        return
    reap_until(program)


def reap_until(program):
    """The init's last duty: reaps every process of the run, and ends it (and so them all) when `program` ends."""
    while True:
        pid, wait_status = os.wait()
        if pid == program:
            os._exit(exit_status(wait_status))


def clear_staging(workdir, stdio):
    for entry in os.scandir(workdir):
        if entry.is_dir(follow_symlinks=False):
            clear_staging(entry.path, stdio)
            os.rmdir(entry.path)
        else:
            os.unlink(entry.path)
    try:
        os.unlink(f'/tmp/{stdio["stdin"]}')
    except FileNotFoundError:
        pass


def new_output_fifos(stdio):
    """The next run's stdout and stderr: new inodes, whatever the last run (their owner) did to its own."""
    for name in (stdio['stdout'], stdio['stderr']):
        try:
            os.unlink(f'/tmp/{name}')
        except FileNotFoundError:
            pass
        os.mkfifo(f'/tmp/{name}', 0o600)


def fork_beside_init(init_path, own_pid_namespace):
    """
    Spawns run-init (init_path) as pid 1 of a new pid namespace, without copying the zygote (vfork and exec),
    then forks the program into that namespace as pid 2: returns (init, program), program 0 in the program.
    """
    check(libc.unshare(CLONE_NEWPID), 'unshare(CLONE_NEWPID)')
    program = None
    try:
        init = os.posix_spawn(init_path, [init_path], {})
        program = os.fork()
    finally:
        if program != 0:
            check(libc.setns(own_pid_namespace, CLONE_NEWPID), 'setns(own pid namespace)')
    return init, program


def fork_init(own_pid_namespace):
    """Forks the run's init as pid 1 of a new pid namespace; the zygote's own next children are back in its own."""
    check(libc.unshare(CLONE_NEWPID), 'unshare(CLONE_NEWPID)')
    init = os.fork()
    if init != 0:
        check(libc.setns(own_pid_namespace, CLONE_NEWPID), 'setns(own pid namespace)')
    return init


def load_kernel():
    """kernel.py's functions, and the cell runner it makes (IPython's shell, its imports done), for every session."""
    kernel = {'__name__': 'fusebox_kernel', '__builtins__': __builtins__}
    exec(compile(read_all(KERNEL_FD), 'kernel.py', 'exec'), kernel)
    return kernel, kernel['ipython_runner']()


def wait_for_run(init, program):
    """The wait status of the run's program, once the run has ended."""
    if init == program:
        return os.waitpid(program, 0)[1]
    # The program beside run-init is this process's own child: each stop and continue of it would wake a bare
    # waitpid, on CPU counted outside the run. Its pidfd wakes only once it has ended.
    ended = os.pidfd_open(program)
    select.select([ended], [], [])
    os.close(ended)
    wait_status = os.waitpid(program, 0)[1]
    # The program's end is the run's: its namespace ends with its init, and every process left in it. The program
    # (not its namespace's init) may clone with CLONE_PARENT, making children of this process: run-init cannot end
    # until they are reaped, so every child is reaped until run-init is.
    os.kill(init, signal.SIGKILL)
    while os.waitpid(-1, 0)[0] != init:
        pass
    return wait_status


def serve():
    """The zygote's loop; returns only in a forked program's process, with its job."""
    config = json.loads(sys.argv[1])
    seccomp_filter = read_all(SECCOMP_FD)
    kernel = load_kernel() if config.get('sessions') else None
    os.closerange(SECCOMP_FD, os.sysconf('SC_OPEN_MAX'))
    for name in config['modules']:
        try:
            __import__(name)
        except ImportError:
            pass  # listed, not installed: runs import what they need themselves
    stdio = config['stdio']
    workdir = os.getcwd()
    own_pid_namespace = os.open('/proc/self/ns/pid', os.O_RDONLY)
    if own_pid_namespace != PID_NAMESPACE_FD:
        os.dup2(own_pid_namespace, PID_NAMESPACE_FD)
        os.close(own_pid_namespace)
    covers = proc_covers()
    # Every run's and session's mount namespace is a copy of this one, and so private too: no mount made in it
    # propagates back here. Done once, rather than by every run over its whole copy of the tree.
    check(libc.mount(b'none', b'/', None, MS_REC | MS_PRIVATE, None), 'private mounts')
    jobs = os.fdopen(3, 'rb', buffering=0)
    # Objects of the zygote are never collected in a run: their pages stay shared with it instead of being
    # written to by the collector.
    gc.freeze()
    if kernel is not None:
        serve_sessions(config, kernel, jobs, workdir, covers, seccomp_filter)
    while True:
        new_output_fifos(stdio)
        os.write(4, b'ready\n')
        line = jobs.readline()
        if not line:
            os._exit(0)
        job = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        if config['runInit'] is None:
            init = program = fork_init(PID_NAMESPACE_FD)
        else:
            init, program = fork_beside_init(config['runInit'], PID_NAMESPACE_FD)
        if program == 0:
            try:
                if init == 0:
                    run_init(config, job, jobs, workdir, covers, seccomp_filter)
                else:
                    isolate_run(config, jobs, workdir, covers, seccomp_filter)
                    limit_program(config, job['memoryLimitBytes'])
            except BaseException as error:  # a broken set-up: say so where the run's stderr goes, and end the run
                os.write(2, f'fusebox zygote: {error}\n'.encode())
                os._exit(125)
            return job
        os.write(4, f'run {time.time():.6f}\n'.encode())
        wait_status = wait_for_run(init, program)
        os.write(4, f'ran {exit_status(wait_status)} {time.time():.6f}\n'.encode())
        clear_staging(workdir, stdio)


def report_ended(signum, frame):
    """SIGCHLD in a session zygote: reaps every ended session's init and tells the host (one write, one line)."""
    while True:
        try:
            pid, wait_status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        os.write(4, f'ended {pid} {exit_status(wait_status)}\n'.encode())


def read_line(jobs, expected):
    line = jobs.readline()
    if not line:
        os._exit(0)
    if line != expected:
        raise OSError(f'the host said {line!r}, not {expected!r}')


def serve_sessions(config, kernel, jobs, workdir, covers, seccomp_filter):
    """A session zygote's loop (see the top of this file); never returns in the zygote."""
    signal.signal(signal.SIGCHLD, report_ended)
    while True:
        for name in SESSION_FIFOS:
            try:
                os.unlink(f'/tmp/{name}')
            except FileNotFoundError:
                pass
            os.mkfifo(f'/tmp/{name}', 0o600)
        os.write(4, b'ready\n')
        read_line(jobs, b'{}\n')
        # The host holds both ends' other sides open: neither open blocks.
        control = os.open(f'/tmp/{SESSION_FIFOS[0]}', os.O_RDONLY | os.O_NONBLOCK)
        events = os.open(f'/tmp/{SESSION_FIFOS[1]}', os.O_WRONLY | os.O_NONBLOCK)
        for fd in (control, events):
            os.set_blocking(fd, True)
        go, go_sent = os.pipe()
        copied_wait, copied = os.pipe()
        init = fork_init(PID_NAMESPACE_FD)
        if init == 0:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            for fd in (go_sent, copied_wait):
                os.close(fd)
            try:
                session_init(config, kernel, workdir, covers, seccomp_filter, go, copied, control, events)
            except BaseException as error:  # a broken set-up: the session ends before its first cell
                try:
                    os.write(events, f'fusebox zygote: {error}\n'.encode())
                finally:
                    os._exit(125)
        for fd in (control, events, go, copied):
            os.close(fd)
        os.write(4, f'forked {init}\n'.encode())
        read_line(jobs, b'go\n')
        os.write(go_sent, b'g')
        os.close(go_sent)
        # Until the init has copied the staged files into its own /tmp (or died), the staging directory is its.
        os.read(copied_wait, 1)
        os.close(copied_wait)
        clear_staging(workdir, config['stdio'])


def session_init(config, kernel, workdir, covers, seccomp_filter, go, copied, control, events):
    """Pid 1 of a session: as a run's init, then the kernel's cell loop in its program on fds 3 and 4."""
    for fd in (3, 4, 5, 6, PID_NAMESPACE_FD):  # the zygote's channels and its sandbox's compile-step pipes
        os.close(fd)
    if os.read(go, 1) != b'g':
        os._exit(125)
    os.close(go)
    check(libc.unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP), 'unshare')
    new_tmp(config, workdir)
    os.close(copied)
    new_proc(covers)
    null = os.open('/dev/null', os.O_RDWR)
    for target in (0, 1, 2):
        os.dup2(null, target)
    os.close(null)
    os.chdir(workdir)
    drop_privileges(seccomp_filter, own_network=True)
    os.dup2(control, 3)
    os.dup2(events, 4)
    os.close(control)
    os.close(events)
    program = os.fork()
    if program == 0:
        limit_program(config, None, kept_fds=5)
        reseed_random()
        namespace, runner = kernel
        namespace['KERNEL_PID'] = os.getpid()
        namespace['serve'](runner)
        os._exit(0)
    os.close(3)
    os.close(4)
    reap_until(program)


def reseed_random():
    """In a forked program: random sources seeded afresh, not the zygote's state that every fork shares."""
    import random
    random.seed()
    numpy_random = sys.modules.get('numpy.random')
    if numpy_random is not None:
        numpy_random.seed()


def run_program(job):
    """Runs the staged program as `python3 <source>` would, in this (forked) interpreter."""
    import importlib.machinery
    import types

    path = job['source']
    reseed_random()
    main = types.ModuleType('__main__')
    main.__file__ = path
    main.__cached__ = None
    main.__loader__ = importlib.machinery.SourceFileLoader('__main__', path)
    main.__builtins__ = __builtins__
    sys.modules['__main__'] = main
    sys.argv = [path]
    sys.path[0] = os.path.dirname(path)
    try:
        with open(path, 'rb') as source:
            code = compile(source.read(), path, 'exec', dont_inherit=True)
        exec(code, main.__dict__)
        status = 0
    except SystemExit as request:
        status = system_exit_status(request)
    except BaseException as error:
        # The traceback starts at the program's own first frame, as `python3 file.py` prints it.
        trace = error.__traceback__
        while trace is not None and trace.tb_frame.f_code.co_filename != path:
            trace = trace.tb_next
        error.__traceback__ = trace
        sys.excepthook(type(error), error, trace)
        status = 130 if isinstance(error, KeyboardInterrupt) else 1
    shut_down(main, status)


def system_exit_status(request):
    """The status `python3` exits with on an uncaught SystemExit, printing its message when it is not a number."""
    if request.code is None:
        return 0
    if isinstance(request.code, int):
        return request.code & 0xFF
    try:
        print(request.code, file=sys.stderr)
    except BaseException:
        pass
    return 1


def shut_down(main, status):
    """
    Ends the program as `python3` ends (non-daemon threads joined, atexit handlers, finalizers of its globals
    and of its garbage, open files flushed, stdout and stderr flushed: 120 if that fails), but without tearing
    the interpreter down: freeing every object would write to every page the run shares with its zygote, and
    copying them cost about five times the rest of a forked `print(1)`.
    """
    import atexit
    import io

    for step in (getattr(sys.modules.get('threading'), '_shutdown', None), atexit._run_exitfuncs):
        try:
            if step is not None:
                step()
        except BaseException:
            pass
    flushed = flush_standard_streams()
    # As CPython clears a module: names with an underscore first, then the rest; never __builtins__.
    for underscored in (True, False):
        for name in [name for name in main.__dict__ if name.startswith('_') == underscored]:
            if name != '__builtins__':
                main.__dict__[name] = None
    gc.collect()
    # Files left open are flushed as their finalizers would. The zygote's objects are frozen, out of this list.
    for stream in gc.get_objects():
        if isinstance(stream, io.IOBase) and stream is not sys.stdout and stream is not sys.stderr:
            try:
                if not stream.closed:
                    stream.flush()
            except BaseException:
                pass
    os._exit(status if flush_standard_streams() and flushed else 120)


def flush_standard_streams():
    """Flushes sys.stdout and sys.stderr, as CPython does on its way out; False if either fails."""
    flushed = True
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except BaseException:
            flushed = False
    return flushed


run_program(serve())
