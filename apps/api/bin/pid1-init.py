# What `fusebox` runs under when it is pid 1 (a container's command): a minimal init. Orphaned processes are
# handed to pid 1, which must reap them, and Node reaps only the children it spawned itself, so as pid 1 it would
# collect their zombies for ever. This process is the children's subreaper instead: it runs the real command,
# passes the stop signals on to it, reaps every process that ends up its child, and when the command exits, kills
# what is left and exits with the command's status.
#
# argv: the command to run (the node executable and its arguments).
import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36

libc = ctypes.CDLL(None, use_errno=True)
libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
# It dies with the pid 1 that started it, and the command with it (the command's own parent-death handling).
libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
if os.getppid() != 1:
    sys.exit(1)

command = os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ)
# Signals go through a pidfd: once the command is reaped its pid may belong to another process, its pidfd never.
command_handle = os.pidfd_open(command)
command_status = None


def forward(number, _frame):
    try:
        signal.pidfd_send_signal(command_handle, number)
    except ProcessLookupError:
        pass  # the command has ended: there is nothing to pass the signal on to


for forwarded in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(forwarded, forward)


def children():
    pids = []
    for tid in os.listdir('/proc/self/task'):
        with open(f'/proc/self/task/{tid}/children') as listing:
            pids.extend(int(pid) for pid in listing.read().split())
    return pids


while True:
    try:
        pid, wait_status = os.waitpid(-1, 0)
    except ChildProcessError:
        break
    if pid == command:
        command_status = os.waitstatus_to_exitcode(wait_status)
    if command_status is not None:
        # Whatever outlived the command (adopted orphans) must not outlive this init. A killed process's own
        # children are handed to this init as it dies, so the pass is repeated after every reaped child.
        for orphan in children():
            try:
                os.kill(orphan, signal.SIGKILL)
            except OSError:
                pass
status = 1 if command_status is None else command_status
# A stop signal from here on must not end the init with its own status: Python's shutdown would put the default
# handlers back, so they are ignored and the init leaves at once.
for ignored in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(ignored, signal.SIG_IGN)
# Killed by a signal: the shell's convention, 128 + its number.
os._exit(status if status >= 0 else 128 - status)
