import { readFileSync, readlinkSync } from 'node:fs';
import { isAlive } from './process-alive';

/**
 * The pid namespace every other descends from (PROC_PID_INIT_INO, fixed by the kernel). Names from before
 * owners were tagged carry a bare pid, which says who owns them only when read from here.
 */
const INITIAL_PID_NAMESPACE = 4026531836;

function pidNamespace(): number {
  return Number(/\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1]);
}

/** When a process started, in clock ticks since boot (field 22 of its stat); undefined if it is gone. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

const OWN_NAMESPACE = pidNamespace();

/**
 * What this process puts at the start of the names it leaves on ground other Fusebox processes share (cgroups
 * under /sys/fs/cgroup, directories under /tmp): `<pid>-n<pid namespace>.<start time>-`. The pid alone cannot
 * say whether the owner lives: a restarted server may get its predecessor's pid (a container's pid 1 always
 * does), and a server in another pid namespace (a container, a test under unshare) sees other pids entirely, so
 * it would take every live server outside for dead and kill its sandboxes.
 */
export const OWNER_PREFIX = `${process.pid}-n${OWN_NAMESPACE}.${startTime(process.pid)}-`;

/**
 * True when `name` (after `prefix`) was made by a process of this pid namespace that is gone: its leftovers are
 * free to kill and remove. Names of other namespaces are never judged: their owners may well be alive.
 */
export function ownerGone(name: string, prefix = ''): boolean {
  if (!name.startsWith(prefix)) return false;
  const match = /^(\d+)(?:-n(\d+)\.(\d+))?(?:-|$)/.exec(name.slice(prefix.length));
  if (!match) return false;
  const [, pid, namespace, started] = match;
  if (namespace === undefined) return OWN_NAMESPACE === INITIAL_PID_NAMESPACE && !isAlive(Number(pid));
  if (Number(namespace) !== OWN_NAMESPACE) return false;
  return startTime(Number(pid)) !== started;
}
