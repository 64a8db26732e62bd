import { type Stats, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import { memTotalBytes } from './run-budget';
import { RUN_INIT } from './runtime-profiles';
import type { Isolation } from './sandbox-launcher';
import { DEFAULT_SANDBOX_UID_BASE, DEFAULT_SANDBOX_UID_BLOCK, SANDBOX_UID_COUNT } from './sandbox-identities';
import { defaultSeccompCacheDir } from './seccomp-cache';
import { DEFAULT_UID_LEASE_DIR } from './uid-leases';

export { DEFAULT_SANDBOX_UID_BASE, DEFAULT_SANDBOX_UID_BLOCK };

/**
 * How an {@link Executor} runs code. Every field is optional; the defaults suit one API process per machine.
 *
 * @example
 * const executor = await createExecutor({ concurrency: 8, memoryCapMB: 4096 });
 */
export interface ExecutorOptions {
  /**
   * The most executions running at once (runs, Jupyter requests and session cells), a ceiling over the memory
   * and process budget below, which is what admits them. Default 256.
   */
  concurrency?: number;
  /** Executions that may wait for room to run; one more is refused with `QueueFullError`. Default 1024. */
  queueLimit?: number;
  /**
   * Longest an execution waits for room to run before it is refused with `QueueFullError` (which says how long
   * it waited and what was short); its own timeouts count only from when it starts. 0: no bound. Default 60 000.
   */
  queueTimeoutMs?: number;
  /**
   * Memory of all sandboxes together (runs, sessions, zygotes, warm sandboxes), held by their parent cgroup.
   * Default: the machine's memory less `memoryHeadroomMB`.
   */
  memoryBudgetMB?: number;
  /** What one running execution counts for at least against `memoryBudgetMB`, before it has grown. Default 64. */
  runMemoryMB?: number;
  /** The host's MemAvailable that must stay free once one more execution is admitted. Default 2048. */
  memoryHeadroomMB?: number;
  /** Processes and threads of all sandboxes together, held by their parent cgroup. Default 8192. */
  processBudget?: number;
  /** What one running execution counts for at least against `processBudget`. Default 16. */
  runProcesses?: number;
  /**
   * The CPU weight of all sandboxes together against each other process of the host at nice 0 (the API's
   * threads), as cgroup v1 `cpu.shares` (1024 is one such process); each sandbox weighs the same inside.
   * Default 8192: with every run spinning, a busy API still gets a ninth of the CPU, while on a machine shared
   * with other busy processes the sandboxes together are not squeezed into the share of a single one.
   */
  cpuShares?: number;
  /** The cores one sandbox may use at most (`cpu.cfs_quota_us`); fractions allowed, 0 for no bound. Default 0. */
  runCpuCores?: number;
  /** `bwrap` (default) isolates every run; `none` runs code as plain processes and warns loudly. */
  isolation?: Isolation;
  /** Bytes of stdout and of stderr kept per step; the rest is dropped with a visible note. Default 1 MiB. */
  outputLimitBytes?: number;
  /**
   * Bytes a `/run_jupyter` request's cells output together (stdout, stderr, display data), each cell within
   * `outputLimitBytes` per stream too; the rest is dropped with a visible note. Default 8 MiB.
   */
  jupyterOutputLimitBytes?: number;
  /** Memory of one sandbox, all its processes and files together (cgroup). Default 2048 MB. */
  memoryCapMB?: number;
  /** Size of one sandbox's writable space (its /tmp, which holds the working directory). Default 512 MB. */
  diskLimitMB?: number;
  /** Processes and threads of one sandbox together; this is what stops a fork bomb. Default 512. */
  maxProcesses?: number;
  /**
   * Files each process of a sandbox may hold open (`RLIMIT_NOFILE`, soft and hard: sandboxed code cannot raise
   * it). Default 4096, four times what most Linux programs expect as their soft limit.
   */
  maxOpenFiles?: number;
  /**
   * When the executor runs as root, sandboxes run as unprivileged host uids from this one on, one per live
   * sandbox. Default 1879048192 (0x70000000), a range nothing on a usual host owns.
   */
  sandboxUidBase?: number;
  /**
   * Uids one lease holds: every executor on the machine (as root) leases whole blocks of this many from the
   * range, held by flocked files in `sandboxUidLeaseDir`, so two servers never share a sandbox uid. Servers
   * sharing a machine must use the same base and block (or disjoint ranges). Default 1024 (64 servers).
   */
  sandboxUidBlock?: number;
  /** Where the uid leases are kept (a directory only root may write). Default /var/lib/fusebox/uid-leases. */
  sandboxUidLeaseDir?: string;
  /**
   * Where the compiled seccomp filter is kept between starts, checked against a fresh compile after each start
   * before code runs; null: compiled at every start. Default /var/lib/fusebox/seccomp (root), else
   * `$TMPDIR/fusebox-<uid>-seccomp`.
   */
  seccompCacheDir?: string | null;
  /** Bytes of `fetch_files` returned per request, all files together. Default 16 MiB. */
  fetchLimitBytes?: number;
  /**
   * Sandboxes a request waits for starting at once (bubblewrap and an interpreter coming up are CPU work); the
   * others wait their turn, and their 30 s start timeout runs from when they start. Warm-ups take no turn.
   * Default: twice the number of cores.
   */
  sandboxStarts?: number;
  /** Sandboxes kept started and waiting for code. Default: the number of cores (at most `concurrency`). */
  warmSandboxes?: number;
  /** Stateful sessions open at once. Default 64. */
  maxSessions?: number;
  /** A session nobody used for this long is closed. Default 300 000 ms (5 minutes). */
  sessionIdleTimeoutMs?: number;
  /**
   * Forks Python `/run_code` runs from warm interpreters (zygotes) instead of starting one per run.
   * Default false.
   */
  pythonZygote?: boolean;
  /**
   * Zygotes kept; each serves one run at a time, and a run that finds none idle goes cold. Default: twice the
   * number of cores (at most `concurrency`).
   */
  pythonZygotes?: number;
  /** Modules every zygote imports before its first run (those not installed are skipped). */
  pythonZygoteModules?: string[];
  /** Runs one zygote forks before it is replaced. Default 1000. */
  pythonZygoteMaxRuns?: number;
  /** How long one zygote lives before it is replaced. Default 600 000 ms (10 minutes). */
  pythonZygoteMaxAgeMs?: number;
  /**
   * How long a Python run that finds no zygote idle waits for one to come back before it starts cold (0: not at
   * all). Default 300 ms: enough for a burst of short runs at 4 per zygote to share the zygotes.
   */
  pythonZygoteWaitMs?: number;
  /**
   * The pid 1 of forked runs: the path of a built run-init.c, or null to make it a copy of the zygote (one more
   * Python process per run). Default: where setup builds it (RUN_INIT), when it is there, root's and executable.
   */
  pythonRunInit?: string | null;
  /** Where warnings go (isolation off, cgroups unavailable, background clean-up failures). Default console.warn. */
  warn?: (message: string) => void;
}

export type ResolvedExecutorOptions = Required<ExecutorOptions>;

const MB = 1024 * 1024;
/** The default ceiling of executions at once: the budget admits them, this only bounds a runaway count. */
const DEFAULT_CONCURRENCY = 256;
const DEFAULT_HEADROOM_MB = 2048;
/** The memory budget where the machine's memory cannot be read. */
const FALLBACK_MEMORY_BUDGET_MB = 4096;
/**
 * What zygotes import by default: the standard modules model-written Python usually imports. numpy, sympy,
 * scipy or pandas are worth listing when installed (each adds its import time to a zygote's start and its size
 * to every zygote's memory).
 */
export const DEFAULT_ZYGOTE_MODULES = [
  'bisect',
  'collections',
  'dataclasses',
  'datetime',
  'decimal',
  'fractions',
  'functools',
  'heapq',
  'itertools',
  'json',
  'math',
  'random',
  're',
  'statistics',
  'string',
  'typing',
];
const PYTHON_MODULE_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** Validates options up front and fills in the defaults; throws TypeError naming what was expected. */
export function resolveExecutorOptions(options: ExecutorOptions = {}): ResolvedExecutorOptions {
  const count = (name: keyof ExecutorOptions, fallback: number, minimum = 1): number => {
    const value = options[name] ?? fallback;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < minimum) {
      throw new TypeError(
        `expected ${name} to be an integer of at least ${minimum}, got ${JSON.stringify(options[name])}`,
      );
    }
    return value;
  };
  if (options.isolation !== undefined && options.isolation !== 'bwrap' && options.isolation !== 'none') {
    throw new TypeError(
      `expected isolation to be 'bwrap' or 'none', got ${JSON.stringify(options.isolation)}`,
    );
  }
  const modules = options.pythonZygoteModules ?? DEFAULT_ZYGOTE_MODULES;
  if (!Array.isArray(modules) || !modules.every((name) => PYTHON_MODULE_NAME.test(name))) {
    throw new TypeError(
      `expected pythonZygoteModules to be Python module names, got ${JSON.stringify(options.pythonZygoteModules)}`,
    );
  }
  if (options.sandboxUidBlock !== undefined && options.sandboxUidBlock > SANDBOX_UID_COUNT) {
    throw new TypeError(
      `expected sandboxUidBlock to be at most ${SANDBOX_UID_COUNT}, got ${options.sandboxUidBlock}`,
    );
  }
  if (
    options.seccompCacheDir !== undefined &&
    options.seccompCacheDir !== null &&
    typeof options.seccompCacheDir !== 'string'
  ) {
    throw new TypeError(
      `expected seccompCacheDir to be a path or null, got ${JSON.stringify(options.seccompCacheDir)}`,
    );
  }
  if (options.sandboxUidLeaseDir !== undefined && !options.sandboxUidLeaseDir.startsWith('/')) {
    throw new TypeError(
      `expected sandboxUidLeaseDir to be an absolute path, got ${JSON.stringify(options.sandboxUidLeaseDir)}`,
    );
  }
  if (options.warn !== undefined && typeof options.warn !== 'function') {
    throw new TypeError('expected warn to be a function');
  }
  const runCpuCores = options.runCpuCores ?? 0;
  if (typeof runCpuCores !== 'number' || !Number.isFinite(runCpuCores) || runCpuCores < 0) {
    throw new TypeError(
      `expected runCpuCores to be a number of cores of at least 0, got ${JSON.stringify(options.runCpuCores)}`,
    );
  }
  const concurrency = count('concurrency', DEFAULT_CONCURRENCY);
  const cores = availableParallelism();
  const memoryHeadroomMB = count('memoryHeadroomMB', DEFAULT_HEADROOM_MB, 0);
  const totalMB = Math.floor((memTotalBytes() ?? 0) / MB);
  const memoryBudgetMB = count(
    'memoryBudgetMB',
    totalMB > memoryHeadroomMB ? totalMB - memoryHeadroomMB : FALLBACK_MEMORY_BUDGET_MB,
  );
  const runMemoryMB = count('runMemoryMB', 64);
  if (runMemoryMB > memoryBudgetMB) {
    throw new TypeError(
      `expected runMemoryMB (${runMemoryMB}) to be at most memoryBudgetMB (${memoryBudgetMB}): no execution could ever start`,
    );
  }
  const processBudget = count('processBudget', 8192);
  const runProcesses = count('runProcesses', 16);
  if (runProcesses > processBudget) {
    throw new TypeError(
      `expected runProcesses (${runProcesses}) to be at most processBudget (${processBudget}): no execution could ever start`,
    );
  }
  const warn = options.warn ?? ((message: string) => console.warn(message));
  return {
    concurrency,
    queueLimit: count('queueLimit', 1024, 0),
    queueTimeoutMs: count('queueTimeoutMs', 60_000, 0),
    memoryBudgetMB,
    runMemoryMB,
    memoryHeadroomMB,
    processBudget,
    runProcesses,
    cpuShares: count('cpuShares', 8192, 2),
    runCpuCores,
    isolation: options.isolation ?? 'bwrap',
    outputLimitBytes: count('outputLimitBytes', MB),
    jupyterOutputLimitBytes: count('jupyterOutputLimitBytes', 8 * MB),
    memoryCapMB: count('memoryCapMB', 2048),
    diskLimitMB: count('diskLimitMB', 512),
    maxProcesses: count('maxProcesses', 512),
    maxOpenFiles: count('maxOpenFiles', 4096, 64),
    sandboxUidBase: count('sandboxUidBase', DEFAULT_SANDBOX_UID_BASE),
    sandboxUidBlock: count('sandboxUidBlock', DEFAULT_SANDBOX_UID_BLOCK),
    sandboxUidLeaseDir: options.sandboxUidLeaseDir ?? DEFAULT_UID_LEASE_DIR,
    seccompCacheDir:
      options.seccompCacheDir === undefined ? defaultSeccompCacheDir() : options.seccompCacheDir,
    fetchLimitBytes: count('fetchLimitBytes', 16 * MB, 0),
    warmSandboxes: count('warmSandboxes', Math.min(concurrency, cores), 0),
    sandboxStarts: count('sandboxStarts', 2 * cores),
    maxSessions: count('maxSessions', 64, 0),
    sessionIdleTimeoutMs: count('sessionIdleTimeoutMs', 300_000),
    pythonZygote: options.pythonZygote ?? false,
    pythonZygotes: count('pythonZygotes', Math.min(concurrency, 2 * cores)),
    pythonZygoteModules: modules,
    pythonZygoteMaxRuns: count('pythonZygoteMaxRuns', 1000),
    pythonZygoteMaxAgeMs: count('pythonZygoteMaxAgeMs', 600_000),
    pythonZygoteWaitMs: count('pythonZygoteWaitMs', 300, 0),
    pythonRunInit: options.pythonZygote ? runInit(options.pythonRunInit, warn) : null,
    warn,
  };
}

/**
 * The run-init to use: the one asked for (which must be usable), or the one setup built when it is usable; null
 * (and a warning, when one is there but unusable) otherwise.
 */
function runInit(asked: string | null | undefined, warn: (message: string) => void): string | null {
  if (asked === null) return null;
  const path = asked ?? RUN_INIT;
  const unusable = runInitProblem(path);
  if (unusable === undefined) return path;
  if (asked !== undefined)
    throw new Error(`expected pythonRunInit to be a usable run-init, but ${path} ${unusable}`);
  if (unusable !== 'does not exist') {
    warn(
      `run-init at ${path} ${unusable}: forked runs' pid 1 is a copy of the zygote instead (run setup as root)`,
    );
  }
  return null;
}

/**
 * Why `path` cannot be a forked run's pid 1, or undefined if it can: the zygotes see only /usr of the host; their
 * uids must be able to execute it but not read it (see run-init.c); root alone may change or replace it.
 */
function runInitProblem(path: string): string | undefined {
  if (!path.startsWith('/usr/')) return 'is not under /usr, which is all the zygotes see of the host';
  let file: Stats;
  let directory: Stats;
  try {
    [file, directory] = [statSync(path), statSync(dirname(path))];
  } catch {
    return 'does not exist';
  }
  const rootOnly = (stat: Stats) => stat.uid === 0 && (stat.mode & 0o022) === 0;
  if (!file.isFile() || !rootOnly(file) || !rootOnly(directory)) return 'is not a file only root may change';
  if ((file.mode & 0o044) !== 0 || (file.mode & 0o001) === 0)
    return 'is not mode 0711 (executable, unreadable)';
  return undefined;
}
