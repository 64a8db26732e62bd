import { readFileSync } from 'node:fs';
import type { CgroupUsage } from './cgroups';

const MB = 1024 * 1024;

/** What the executions running at once may use together, and what each one counts for at least. */
export interface RunBudgetLimits {
  /** Memory of every sandbox together (also the limit of their parent cgroup), in bytes. */
  memoryBytes: number;
  /** What one run counts for at least, in bytes: about what a sleeping or waiting run really holds. */
  runMemoryBytes: number;
  /** The host's MemAvailable that must stay free once one more run is admitted, in bytes. */
  headroomBytes: number;
  /** Processes and threads of every sandbox together (also the limit of their parent cgroup). */
  processes: number;
  /** What one run counts for at least in processes. */
  runProcesses: number;
}

/**
 * Decides whether one more execution may start, by what the running ones really use rather than by their caps:
 * memory limits are caps, not reservations (a run that sleeps holds a few MB of its 1 GB limit). One more is
 * admitted while
 * - the sandboxes' memory (their parent cgroup's, less the file cache the kernel drops at once), counted as at
 *   least `runMemoryBytes` per running execution since a run just started has not grown yet, plus one more
 *   `runMemoryBytes`, stays within `memoryBytes`;
 * - their processes, counted the same way with `runProcesses`, stay within `processes`;
 * - and the host's MemAvailable less `runMemoryBytes` stays above `headroomBytes` (the machine is shared).
 * The kernel holds the same budget on the sandboxes' parent cgroup: if the runs admitted all grow at once, its OOM
 * killer picks among the runs, never the API or a zygote (see RUN_OOM_SCORE_ADJ).
 */
export class RunBudget {
  readonly limits: RunBudgetLimits;
  readonly #usage: () => CgroupUsage | undefined;
  readonly #available: () => number | undefined;

  constructor(
    limits: RunBudgetLimits,
    usage: () => CgroupUsage | undefined,
    available: () => number | undefined = memAvailableBytes,
  ) {
    this.limits = limits;
    this.#usage = usage;
    this.#available = available;
  }

  /** Whether one more execution fits beside `running` ones; undefined if it does, else what is short. */
  shortfall(running: number): string | undefined {
    const { memoryBytes, runMemoryBytes, headroomBytes, processes, runProcesses } = this.limits;
    const used = this.#usage();
    const memory = Math.max(used?.memoryBytes ?? 0, running * runMemoryBytes) + runMemoryBytes;
    if (memory > memoryBytes) {
      return `memory: ${mb(memory)} MB with one more run, over the budget of ${mb(memoryBytes)} MB (FUSEBOX_EXECUTOR_MEMORY_BUDGET_MB)`;
    }
    const count = Math.max(used?.processes ?? 0, running * runProcesses) + runProcesses;
    if (count > processes) {
      return `processes: ${count} with one more run, over the budget of ${processes} (FUSEBOX_EXECUTOR_PROCESS_BUDGET)`;
    }
    const available = this.#available();
    if (available !== undefined && available - runMemoryBytes < headroomBytes) {
      return `host memory: ${mb(available)} MB available, under the headroom of ${mb(headroomBytes)} MB (FUSEBOX_EXECUTOR_MEMORY_HEADROOM_MB) with one more run`;
    }
    return undefined;
  }
}

/** The host's memory a new process could take without swapping (MemAvailable), or undefined if unknown. */
export function memAvailableBytes(): number | undefined {
  return meminfoBytes('MemAvailable');
}

/** The host's total memory (MemTotal), or undefined if unknown. */
export function memTotalBytes(): number | undefined {
  return meminfoBytes('MemTotal');
}

function meminfoBytes(field: string): number | undefined {
  try {
    const kB = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync('/proc/meminfo', 'utf8'))?.[1];
    return kB === undefined ? undefined : Number(kB) * 1024;
  } catch {
    return undefined;
  }
}

const mb = (bytes: number) => Math.round(bytes / MB);
