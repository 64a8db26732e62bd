// Pid 1 of a run forked from a Python zygote (python-zygote.py), instead of a second copy of the zygote's Python:
// the program is the zygote's own child, entered into this pid namespace after this process, which only reaps
// what the program leaves orphaned until the zygote ends the run by killing it (and so the namespace).
//
// It stays in the zygote's namespaces, as the zygote's uid (the host uid the program's own maps to), so nothing
// of the program may reach it: it holds no descriptor; it has no signal handler (a namespace's init gets no
// signal from inside that it does not handle, not even SIGKILL); the capabilities it keeps from the zygote, in a
// user namespace where the program has none, refuse the program ptrace's checks (/proc/1/{root,cwd,environ,maps,
// ns/*}) and setpriority, sched_setaffinity or ioprio_set on it, though its uid matches; and it is not dumpable
// (setup installs it mode 0711, which the zygote's uid cannot read, so exec makes it undumpable before its first
// instruction, and /proc/1's files stay root's; the prctl below is for a copy installed otherwise).
#define _GNU_SOURCE
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(void) {
  sigset_t child;
  sigemptyset(&child);
  sigaddset(&child, SIGCHLD);
  // Blocked, so a child's end is queued for sigwaitinfo rather than ignored.
  sigprocmask(SIG_BLOCK, &child, 0);
  prctl(PR_SET_DUMPABLE, 0);
  if (close_range(0, ~0U, 0) != 0) {
    for (long fd = sysconf(_SC_OPEN_MAX) - 1; fd >= 0; fd--) close((int)fd);
  }
  // The program's uid may send this process SIGCHLD, which its being blocked keeps: a wake-up a process sent (not
  // the kernel, for a child's end) costs a pause, so that sending them in a loop cannot make it spin, on CPU
  // counted outside the run's cgroup.
  const struct timespec pause = {0, 10 * 1000 * 1000};
  siginfo_t info;
  for (;;) {
    while (waitpid(-1, 0, WNOHANG) > 0) {
    }
    if (sigwaitinfo(&child, &info) > 0 && info.si_code <= 0) nanosleep(&pause, 0);
  }
}
