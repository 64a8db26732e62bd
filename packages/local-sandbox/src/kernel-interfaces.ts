import { existsSync, statSync } from 'node:fs';

/**
 * What of the kernel's interfaces under /proc a container runtime hides (runc's default masked paths):
 * information about the host's hardware, memory and timers, and the host's keyrings. Each is covered with an
 * empty read-only file or directory where this kernel has it.
 */
const MASKED_PATHS = [
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

/** What a container runtime leaves visible but read-only (runc's default read-only paths): kernel settings. */
const READ_ONLY_PATHS = ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'];

/**
 * The sandbox's pid 1 is its driver, or bubblewrap's init, and the same uid as the code it runs: its memory
 * and file descriptors would be open to that code through /proc (the driver holds the channel its reports go
 * out on). Covering them shuts that door; pid 1 cannot be signalled from inside its own namespace either.
 */
const INIT_PRIVATE_PATHS = [
  { path: '/proc/1/mem', directory: false },
  { path: '/proc/1/task/1/mem', directory: false },
  { path: '/proc/1/fd', directory: true },
  { path: '/proc/1/task/1/fd', directory: true },
  { path: '/proc/1/fdinfo', directory: true },
  { path: '/proc/1/task/1/fdinfo', directory: true },
];

/** bubblewrap arguments, after `--proc /proc`, that mask and freeze the kernel interfaces above. */
export function kernelInterfaceArgs(): string[] {
  const cover = ({ path, directory }: { path: string; directory: boolean }) =>
    directory
      ? ['--perms', '0555', '--size', '4096', '--tmpfs', path, '--remount-ro', path]
      : ['--ro-bind', '/dev/null', path];
  return [
    ...MASKED_PATHS.filter((path) => existsSync(path))
      .map((path) => ({ path, directory: statSync(path).isDirectory() }))
      .flatMap(cover),
    // Bound from the host's /proc, read-only: the same kernel's settings, with every write refused.
    ...READ_ONLY_PATHS.filter((path) => existsSync(path)).flatMap((path) => ['--ro-bind', path, path]),
    ...INIT_PRIVATE_PATHS.flatMap(cover),
  ];
}
