import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** A process as /proc/<pid>/stat describes it. */
export interface ProcessEntry {
  pid: number;
  ppid: number;
  /** R, S, D, Z… */
  state: string;
  command: string;
}

/** Every process on the machine now (as this process's pid namespace sees them). */
export function processTable(): ProcessEntry[] {
  const entries: ProcessEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command is in parentheses and may hold spaces and parentheses itself: the fields follow the last ')'.
      const close = stat.lastIndexOf(')');
      const [state = '?', ppid = '0'] = stat.slice(close + 2).split(' ');
      entries.push({
        pid: Number(name),
        ppid: Number(ppid),
        state,
        command: stat.slice(stat.indexOf('(') + 1, close),
      });
    } catch {
      // It exited meanwhile.
    }
  }
  return entries;
}

/** `root`'s descendants now (not `root` itself). */
export function descendants(root: number, table = processTable()): ProcessEntry[] {
  const found: ProcessEntry[] = [];
  const parents = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const entry of table) {
      if (parents.has(entry.ppid) && !parents.has(entry.pid)) {
        parents.add(entry.pid);
        found.push(entry);
        grew = true;
      }
    }
  }
  return found;
}

/**
 * Zombies under `root` that nobody reaps: zombies seen twice, `settleMs` apart (a process is a zombie for a
 * moment before any parent reaps it).
 */
export async function unreapedZombies(root: number, settleMs = 2_000): Promise<ProcessEntry[]> {
  const zombies = (entries: ProcessEntry[]) => entries.filter((entry) => entry.state === 'Z');
  const first = new Set(zombies(descendants(root)).map((entry) => entry.pid));
  await sleep(settleMs);
  return zombies(descendants(root)).filter((entry) => first.has(entry.pid));
}
