import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CpuSample } from './cpu-starvation';
import { OWNER_PREFIX, ownerGone } from './process-owner';
import { randomName } from './random-name';

const CGROUP_V1 = '/sys/fs/cgroup';
/** Limits: without both, sandboxes get no cgroups at all. */
const CONTROLLERS = ['pids', 'memory'] as const;
/**
 * Accounting (`cpuacct`) and CPU sharing (`cpu`): each used when this process may make cgroups there (root, or a
 * subtree delegated), skipped otherwise.
 */
const ACCOUNTING = 'cpuacct';
const CPU = 'cpu';
/** The period `cpu.cfs_quota_us` counts in (the kernel's default), in microseconds. */
const CPU_PERIOD_US = 100_000;
/** Removing a cgroup fails while the kernel still finishes reaping its processes; retry this often. */
const REMOVE_ATTEMPTS = 50;
const REMOVE_RETRY_MS = 20;

/** What one sandbox may use in total, whatever it forks. */
export interface CgroupLimits {
  maxProcesses: number;
  memoryBytes: number;
  /**
   * The sandbox's weight for the CPU against its siblings (v1 `cpu.shares`, the counterpart of v2's `cpu.weight`):
   * the same for every sandbox, so CPU is shared per run, however many processes or threads a run starts.
   */
  cpuShares: number;
  /** At most this many cores (`cpu.cfs_quota_us` over a 100 ms period); 0 for no bound. */
  cpuCores: number;
}

/** What all the sandboxes of one parent may use together, enforced on the parent cgroup by the kernel. */
export interface CgroupBudget {
  /** Memory of every sandbox together: past it the kernel's OOM killer picks a victim among them, never outside. */
  memoryBytes: number;
  /** Processes and threads of every sandbox together: no fork bomb can take the host's pid space. */
  processes: number;
  /**
   * The share of this budget one run may count on however full it is: the budget over the runs that may run at
   * once. A run starved while it held more is one of those that filled the budget (see
   * {@link SandboxCgroup.starvedBySharedBudget}).
   */
  perRun: { processes: number; memoryBytes: number };
  /** The weight of all the sandboxes together against the other processes of the host (the API among them). */
  cpuShares: number;
}

/** What the sandboxes of one parent use now. */
export interface CgroupUsage {
  /** Their memory less the file cache the kernel can drop at once (`total_inactive_file`), in bytes. */
  memoryBytes: number;
  processes: number;
}

/**
 * One sandbox's cgroup in the v1 `pids` and `memory` hierarchies (and `cpuacct`, where available). `RLIMIT_AS`
 * counts per process, so only a cgroup bounds the memory of all the sandbox's processes together (kernel memory
 * and its tmpfs included); `RLIMIT_NPROC`, set inside the sandbox's user namespace, bounds its processes too
 * (see the launcher).
 */
export class SandboxCgroup {
  readonly #dirs: string[];
  readonly #perRun: CgroupBudget['perRun'];

  constructor(
    dirs: string[],
    perRun: CgroupBudget['perRun'] = { processes: Infinity, memoryBytes: Infinity },
  ) {
    this.#dirs = dirs;
    this.#perRun = perRun;
  }

  /** One directory per controller: the spawner starts the sandbox inside them, so it is never outside. */
  get directories(): readonly string[] {
    return this.#dirs;
  }

  /**
   * Moves process `pid` (not its children: it must not have forked yet) into this cgroup, in every hierarchy.
   * For a process started elsewhere, such as a run forked inside a zygote's sandbox. Off the event loop: a
   * move waits for an RCU grace period now and then (about 10 ms seen here).
   */
  async join(pid: number): Promise<void> {
    await Promise.all(this.#dirs.map((dir) => writeFile(join(dir, 'cgroup.procs'), String(pid))));
  }

  /** CPU time its processes have used so far, in ms (cpuacct), or undefined without that hierarchy. */
  cpuUsageMs(): number | undefined {
    const dir = hierarchyDir(this.#dirs, ACCOUNTING);
    return dir === undefined ? undefined : Number(readFileSync(join(dir, 'cpuacct.usage'), 'utf8')) / 1e6;
  }

  /**
   * What its threads have had of the CPU so far, for `cpuStarvation()`; undefined without `cpuacct`. Read
   * while the step it brackets is still running: the threads that ended before are no longer counted.
   */
  cpuSample(): CpuSample | undefined {
    const atMs = performance.now();
    const usageMs = this.cpuUsageMs();
    if (usageMs === undefined) return undefined;
    const tasks = join(this.#dirs[0] as string, 'tasks');
    const waitsNs = new Map<number, number>();
    for (const thread of readIds(tasks)) {
      // schedstat: time on a CPU, time waiting in a run queue (both ns), and the number of time slices.
      const wait = readOptional(`/proc/${thread}/schedstat`).split(' ')[1];
      if (wait !== undefined) waitsNs.set(thread, Number(wait));
    }
    // A thread that ended meanwhile may have left its id to a thread outside: only ids still listed count.
    const stillListed = new Set(readIds(tasks));
    for (const thread of waitsNs.keys()) if (!stillListed.has(thread)) waitsNs.delete(thread);
    const cpu = this.cpuDirectory;
    const quotaUs = cpu === undefined ? -1 : Number(readOptional(join(cpu, 'cpu.cfs_quota_us')) || -1);
    const periodUs = cpu === undefined ? 0 : Number(readOptional(join(cpu, 'cpu.cfs_period_us')) || 0);
    return {
      atMs,
      usageMs,
      waitsNs,
      allowedCores: quotaUs > 0 && periodUs > 0 ? Math.min(1, quotaUs / periodUs) : 1,
    };
  }

  /**
   * Why what the kernel did to this sandbox was not its own program's doing, or undefined if it was: forks refused,
   * or a process ended by the OOM killer, while the sandbox was within its own limits and its share, because the
   * budget all sandboxes share (the parent's) was full. Admission counts what runs hold, not what they may grow
   * to, so neighbours can fill that budget; a run they starved says nothing about its program. Read once the run
   * is over and before the cgroup is removed.
   *
   * In v1 a refused fork counts in the forking cgroup's `pids.events` whichever level refused it, and `pids.peak`
   * tells the levels apart: a refusal by its own `pids.max` needs the sandbox at that max. An OOM kill counts in
   * the victim's `memory.oom_control`, and its own limit, when it was the one hit, in its `memory.failcnt`. A run
   * that held more than its share (`perRun`: `pids.peak`, `memory.max_usage_in_bytes`) is one of those that filled
   * the budget, whatever its neighbours did, and its outcome stands: a run that balloons to near its own cap is
   * the OOM killer's first choice and stays its own failure. Only refusals and kills after `since` count; the
   * peaks and `memory.failcnt` are the sandbox's whole life's, which can only leave more to the run.
   */
  starvedBySharedBudget(since: StarvationCounters = NOTHING_YET): string | undefined {
    // Two reads for a run nothing happened to (every run ends here); the rest only once one says something did.
    const [pids, memory] = this.#dirs as [string, string];
    const refused = refusedForks(pids) - since.refusedForks;
    if (refused > 0) {
      const peak = Number(readOptional(join(pids, 'pids.peak')) || Number.NaN);
      const max = Number(readOptional(join(pids, 'pids.max')) || Number.NaN);
      if (peak < max && peak <= this.#perRun.processes) {
        return `the sandboxes' shared process budget was full: the kernel refused this run ${refused} fork(s) while it held at most ${peak} of its own ${max} processes, because other runs held the rest; the result is not its program's (FUSEBOX_EXECUTOR_PROCESS_BUDGET)`;
      }
    }
    const kills = oomKills(memory) - since.oomKills;
    if (kills <= 0) return undefined;
    const ownLimitHit = Number(readOptional(join(memory, 'memory.failcnt')) || 0) > 0;
    const held = Number(readOptional(join(memory, 'memory.max_usage_in_bytes')) || Number.NaN);
    if (ownLimitHit || !(held <= this.#perRun.memoryBytes)) return undefined;
    return `the sandboxes' shared memory was full: the kernel's OOM killer ended ${kills} process(es) of this run while it held at most ${Math.round(held / 2 ** 20)} MB, within its own limit and its share, because other runs held the rest; the result is not its program's (FUSEBOX_EXECUTOR_MEMORY_BUDGET_MB)`;
  }

  /**
   * The counts of refused forks and OOM kills so far, for {@link starvedBySharedBudget} to judge only what came
   * after: a sandbox that outlives one job (an interpreter, which runs cells) keeps its counts from the others.
   */
  starvationCounters(): StarvationCounters {
    const [pids, memory] = this.#dirs as [string, string];
    return { refusedForks: refusedForks(pids), oomKills: oomKills(memory) };
  }

  /** Its directory in the `cpu` hierarchy (where its `cpu.shares` is), or undefined without that hierarchy. */
  get cpuDirectory(): string | undefined {
    return hierarchyDir(this.#dirs, CPU);
  }

  /** The pids of the processes in the cgroup now. */
  processes(): number[] {
    return readPids(this.#dirs[0] as string);
  }

  /** Sends SIGKILL to every process in the cgroup now. */
  killAll(): void {
    killAll(this.#dirs[0] as string);
  }

  /** Kills anything left in the cgroup, then removes it. */
  async remove(): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      const busy = this.#dirs.filter((dir) => !tryRemove(dir));
      if (busy.length === 0) return;
      if (attempt >= REMOVE_ATTEMPTS) throw new Error(`cgroup ${busy.join(', ')} still has processes`);
      for (const dir of busy) killAll(dir);
      await sleep(REMOVE_RETRY_MS);
    }
  }
}

/**
 * This process's parent cgroup for its sandboxes, `/sys/fs/cgroup/{pids,memory,cpuacct,cpu}/fusebox/<pid>-<random>`
 * as root. Any other user needs a subtree root delegated to it, `fusebox-<uid>` (`bin/delegate-cgroups.sh`): it
 * may make cgroups there and move its own processes into them, which is all a sandbox's cgroup takes (`cpuacct`
 * and `cpu` are used only where delegated: without them, runs report no CPU time, and share the CPU per process
 * rather than per run). The parent carries the {@link CgroupBudget} of all its sandboxes together. Cgroups left
 * behind by a Fusebox process that died are removed when the next one starts.
 */
export class CgroupParent {
  readonly #dirs: string[];
  readonly #budget: CgroupBudget;
  #next = 0;

  private constructor(dirs: string[], budget: CgroupBudget) {
    this.#dirs = dirs;
    this.#budget = budget;
  }

  /**
   * Creates the parent cgroups, or returns the reason they are unavailable (no cgroup v1 `pids`/`memory`
   * controllers, no subtree delegated to this user, or no permission to create cgroups).
   */
  static open(budget: CgroupBudget): CgroupParent | string {
    const roots = CONTROLLERS.map((controller) => join(CGROUP_V1, controller));
    const missing = roots.filter((root) => !existsSync(join(root, 'cgroup.procs')));
    if (missing.length > 0) return `no cgroup v1 hierarchy at ${missing.join(', ')}`;
    const uid = process.getuid?.() ?? 0;
    const baseName = uid === 0 ? 'fusebox' : `fusebox-${uid}`;
    const undelegated = roots.filter((root) => uid !== 0 && !existsSync(join(root, baseName)));
    if (undelegated.length > 0)
      return `no cgroup subtree delegated to uid ${uid} at ${undelegated.map((root) => join(root, baseName)).join(', ')}; as root, run packages/local-sandbox/bin/delegate-cgroups.sh <this user>`;
    // One per launcher, named after its process: several executors may live in one process.
    const name = randomName(OWNER_PREFIX);
    const parent = (root: string) => {
      const base = join(root, baseName);
      mkdirSync(base, { recursive: true });
      removeOrphans(base);
      const dir = join(base, name);
      mkdirSync(dir, { recursive: true });
      return dir;
    };
    let dirs: string[];
    try {
      dirs = roots.map(parent);
    } catch (error) {
      return `cannot create cgroups: ${(error as Error).message}`;
    }
    for (const optional of [ACCOUNTING, CPU]) {
      const root = join(CGROUP_V1, optional);
      if (existsSync(join(root, 'cgroup.procs')) && (uid === 0 || existsSync(join(root, baseName)))) {
        try {
          dirs.push(parent(root));
        } catch {
          // Not ours to use: runs then report no CPU time, or share the CPU per process.
        }
      }
    }
    const [pids, memory] = dirs as [string, string];
    try {
      writeFileSync(join(pids, 'pids.max'), String(budget.processes));
      writeFileSync(join(memory, 'memory.limit_in_bytes'), String(budget.memoryBytes));
      const cpu = hierarchyDir(dirs, CPU);
      if (cpu !== undefined) writeFileSync(join(cpu, 'cpu.shares'), String(budget.cpuShares));
    } catch (error) {
      for (const dir of dirs) tryRemove(dir);
      return `cannot set the sandboxes' budget on their parent cgroup: ${(error as Error).message}`;
    }
    return new CgroupParent(dirs, budget);
  }

  /** The parent directories, one per controller: where the spawner itself lives between spawns. */
  get directories(): readonly string[] {
    return this.#dirs;
  }

  /** What every sandbox of this parent uses together now. */
  usage(): CgroupUsage {
    const [pids, memory] = this.#dirs as [string, string];
    const stat = readFileSync(join(memory, 'memory.stat'), 'utf8');
    const inactiveFile = Number(/^total_inactive_file (\d+)$/m.exec(stat)?.[1] ?? 0);
    const used = Number(readFileSync(join(memory, 'memory.usage_in_bytes'), 'utf8'));
    return {
      memoryBytes: Math.max(0, used - inactiveFile),
      processes: Number(readFileSync(join(pids, 'pids.current'), 'utf8')),
    };
  }

  /** Creates a fresh cgroup with these limits for one sandbox. */
  create(limits: CgroupLimits): SandboxCgroup {
    const name = `sandbox-${(this.#next += 1)}`;
    const dirs = this.#dirs.map((parent) => join(parent, name));
    const [pids, memory] = dirs as [string, string];
    for (const dir of dirs) mkdirSync(dir);
    const cgroup = new SandboxCgroup(dirs, this.#budget.perRun);
    try {
      writeFileSync(join(pids, 'pids.max'), String(limits.maxProcesses));
      writeFileSync(join(memory, 'memory.limit_in_bytes'), String(limits.memoryBytes));
      const cpu = cgroup.cpuDirectory;
      if (cpu !== undefined) {
        writeFileSync(join(cpu, 'cpu.shares'), String(limits.cpuShares));
        if (limits.cpuCores > 0) {
          writeFileSync(join(cpu, 'cpu.cfs_period_us'), String(CPU_PERIOD_US));
          writeFileSync(join(cpu, 'cpu.cfs_quota_us'), String(Math.round(limits.cpuCores * CPU_PERIOD_US)));
        }
      }
    } catch (error) {
      for (const dir of dirs) tryRemove(dir);
      throw error;
    }
    return cgroup;
  }

  /** Removes the parent cgroups; every sandbox cgroup must be gone already. */
  close(): void {
    for (const dir of this.#dirs) tryRemove(dir);
  }
}

/** The directory of `dirs` in the v1 hierarchy of `controller`. */
function hierarchyDir(dirs: readonly string[], controller: string): string | undefined {
  return dirs.find((candidate) => candidate.startsWith(`${CGROUP_V1}/${controller}/`));
}

function tryRemove(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/** See {@link SandboxCgroup.starvationCounters}. */
export interface StarvationCounters {
  refusedForks: number;
  oomKills: number;
}

const NOTHING_YET: StarvationCounters = { refusedForks: 0, oomKills: 0 };

/** Forks refused to the cgroup, whichever level refused them (`pids.events`). */
function refusedForks(pidsDir: string): number {
  return Number(/^max (\d+)$/m.exec(readOptional(join(pidsDir, 'pids.events')))?.[1] ?? 0);
}

/** Its processes the OOM killer ended (`memory.oom_control`). */
function oomKills(memoryDir: string): number {
  return Number(/^oom_kill (\d+)$/m.exec(readOptional(join(memoryDir, 'memory.oom_control')))?.[1] ?? 0);
}

/** A cgroup file's text, or '' where the kernel does not have it (an older one lacks `pids.peak`). */
function readOptional(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return '';
  }
}

function readPids(dir: string): number[] {
  return readIds(join(dir, 'cgroup.procs'));
}

/** The ids listed one per line in a cgroup file (`cgroup.procs`, `tasks`); none once the cgroup is gone. */
function readIds(file: string): number[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function killAll(dir: string): void {
  for (const pid of readPids(dir)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/**
 * Kills what is left in the cgroups of Fusebox processes that no longer exist (a sandbox that escaped its
 * parent-death signal as its server was SIGKILLed lives on there), and removes them once the kernel is done
 * with the killed processes, in the background. One still busy after that is tried again by the next start.
 */
function removeOrphans(base: string): void {
  for (const entry of readdirSync(base, { withFileTypes: true })) {
    if (!entry.isDirectory() || !ownerGone(entry.name)) continue;
    const dir = join(base, entry.name);
    const sandboxes = readdirSync(dir, { withFileTypes: true })
      .filter((child) => child.isDirectory())
      .map((child) => join(dir, child.name));
    for (const cgroup of [dir, ...sandboxes]) killAll(cgroup);
    void Promise.all(sandboxes.map((sandbox) => new SandboxCgroup([sandbox]).remove())).then(
      () => tryRemove(dir),
      () => {},
    );
  }
}
