import { readFileSync, readdirSync } from 'node:fs';
import type { RunCodeRequestInput } from '@fusebox/sandbox-client/protocol';
import type { CodeExecution, Executor } from '../src/executor';

/** What every zygote (and every process it forks) carries in its argv: the name it compiles its source as. */
const ZYGOTE_ARGV_MARK = 'python-zygote.py';

/**
 * Runs Python on the forked path: waits until a zygote is idle first, since with none idle a run goes cold.
 */
export async function forkedPython(
  executor: Executor,
  code: string,
  extra: Partial<RunCodeRequestInput> = {},
): Promise<CodeExecution> {
  await until(() => executor.stats().idleZygotes > 0);
  return executor.runCode({ code, language: 'python', ...extra });
}

/**
 * True when `pid` is a zygote or a process forked from one (a run's init, a program): Python with the
 * zygote's argv (bubblewrap, which started it, carries that argv too).
 */
export function isZygoteProcess(pid: string): boolean {
  try {
    return (
      readFileSync(`/proc/${pid}/comm`, 'utf8') === 'python3\n' &&
      readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(ZYGOTE_ARGV_MARK)
    );
  } catch {
    return false;
  }
}

/**
 * The host pids of this process's run zygotes themselves (not what they forked, nor the session zygote), once
 * one is idle unless told.
 */
export async function zygotePids(
  executor: Executor,
  { waitForIdle = true }: { waitForIdle?: boolean } = {},
): Promise<number[]> {
  if (waitForIdle) await until(() => executor.stats().idleZygotes > 0);
  return zygotesOfThisProcess(false);
}

/** The host pid of this process's session zygote (python-zygote.py with sessions on), if one is running. */
export function sessionZygotePid(): number | undefined {
  return zygotesOfThisProcess(true)[0];
}

/** Zygotes themselves (their parent is bubblewrap, not a zygote), told apart by the configuration in their argv. */
function zygotesOfThisProcess(sessions: boolean): number[] {
  return readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid) && isZygoteProcess(pid) && !isZygoteProcess(String(parentOf(pid))))
    .filter(
      (pid) =>
        descendsFrom(Number(pid), process.pid) && zygoteConfiguration(pid).includes(`"sessions":${sessions}`),
    )
    .map(Number);
}

function zygoteConfiguration(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

function parentOf(pid: string | number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}

/** `sleep <seconds>` processes still alive that this process's runs or sessions started. */
export function sleepers(seconds: number): string[] {
  return readdirSync('/proc').filter((pid) => {
    try {
      return (
        readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `sleep\u0000${seconds}\u0000` &&
        descendsFrom(Number(pid), process.pid)
      );
    } catch {
      return false;
    }
  });
}

/** True when `ancestor` is `pid` itself or one of its ancestors. */
export function descendsFrom(pid: number, ancestor: number): boolean {
  for (let current = pid; current > 1; current = parentOf(current)) if (current === ancestor) return true;
  return false;
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}
