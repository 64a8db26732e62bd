# Writes the seccomp filter every sandbox runs under, as classic BPF for bubblewrap's --seccomp, built with
# libseccomp (Debian's python3-seccomp) rather than assembled by hand. argv: the output path.
#
# Default allow, deny what sandboxed code has no business calling: the syscalls that reach other processes'
# memory or file descriptors, create namespaces or mounts, load kernel code, or expose the kernel's large
# attack surfaces (bpf, perf, io_uring, userfaultfd, keyrings). libseccomp adds the architecture check, so the
# 32-bit syscall tables (int 0x80, x32) cannot be used to get around it: such a call kills the process.
import errno
import sys

import seccomp

DENIED = [
    # Other processes' memory and file descriptors.
    'ptrace', 'process_vm_readv', 'process_vm_writev', 'pidfd_getfd', 'kcmp',
    # Namespaces and mounts.
    'unshare', 'setns', 'mount', 'umount', 'umount2', 'pivot_root', 'chroot', 'move_mount', 'open_tree',
    'fsopen', 'fsconfig', 'fsmount', 'fspick', 'mount_setattr',
    # Kernel code and large kernel attack surfaces.
    'bpf', 'perf_event_open', 'userfaultfd', 'io_uring_setup', 'io_uring_enter', 'io_uring_register',
    'kexec_load', 'kexec_file_load', 'init_module', 'finit_module', 'delete_module',
    'keyctl', 'add_key', 'request_key',
    # The host's clock, swap, accounting, console, quotas and raw file handles.
    'settimeofday', 'clock_settime', 'clock_adjtime', 'acct', 'swapon', 'swapoff', 'reboot', 'syslog',
    'quotactl', 'lookup_dcookie', 'open_by_handle_at', 'name_to_handle_at', 'uselib', 'ustat', 'sysfs',
    'vhangup', 'iopl', 'ioperm', 'fanotify_init', 'nfsservctl',
]

CLONE_NAMESPACE_FLAGS = {
    'CLONE_NEWTIME': 0x00000080,
    'CLONE_NEWNS': 0x00020000,
    'CLONE_NEWCGROUP': 0x02000000,
    'CLONE_NEWUTS': 0x04000000,
    'CLONE_NEWIPC': 0x08000000,
    'CLONE_NEWUSER': 0x10000000,
    'CLONE_NEWPID': 0x20000000,
    'CLONE_NEWNET': 0x40000000,
}

# Socket families a program needs: local sockets, IPv4/IPv6 (only the sandbox's own loopback exists) and
# netlink (getifaddrs). Everything else is refused, AF_VSOCK above all: it is not namespaced, so it would reach
# the hypervisor's services from inside any network namespace.
ALLOWED_SOCKET_FAMILIES = {1, 2, 10, 16}
HIGHEST_SOCKET_FAMILY = 45

# Terminal ioctls that push input into, or read from, a terminal the sandbox does not own.
TIOCSTI, TIOCLINUX = 0x5412, 0x541C


def deny(filter_, name, *args, error=errno.EPERM):
    try:
        filter_.add_rule(seccomp.ERRNO(error), name, *args)
    except (RuntimeError, ValueError):
        pass  # A syscall this architecture does not have.


def main():
    filter_ = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    for name in DENIED:
        deny(filter_, name)
    for flag in CLONE_NAMESPACE_FLAGS.values():
        deny(filter_, 'clone', seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    # clone3 passes its flags in memory, where seccomp cannot look: ENOSYS makes glibc fall back to clone.
    deny(filter_, 'clone3', error=errno.ENOSYS)
    for family in range(HIGHEST_SOCKET_FAMILY + 1):
        if family not in ALLOWED_SOCKET_FAMILIES:
            deny(filter_, 'socket', seccomp.Arg(0, seccomp.EQ, family), error=errno.EAFNOSUPPORT)
    deny(filter_, 'socket', seccomp.Arg(0, seccomp.GT, HIGHEST_SOCKET_FAMILY), error=errno.EAFNOSUPPORT)
    for request in (TIOCSTI, TIOCLINUX):
        deny(filter_, 'ioctl', seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, request))
    # Setting another process's limits: the step driver (pid 1) runs as the same uid as the code, and with its
    # descriptors or stack limited to nothing it cannot report how the run ended. Reading them, and setting one's
    # own (pid 0: setrlimit, ulimit), stay allowed.
    deny(filter_, 'prlimit64', seccomp.Arg(0, seccomp.NE, 0), seccomp.Arg(2, seccomp.NE, 0))
    with open(sys.argv[1], 'wb') as out:
        filter_.export_bpf(out)


main()
