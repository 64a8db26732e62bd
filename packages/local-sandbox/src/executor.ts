import {
  type RunCodeRequestInput,
  type RunJupyterRequestInput,
  type RunJupyterResponse,
  runCodeRequestSchema,
  runJupyterRequestSchema,
} from '@fusebox/sandbox-client/protocol';
import { type CodeRunOutcome, runCodeRequest } from './code-runner';
import { ExecutorClosedError } from './errors/executor-closed-error';
import {
  type ExecutorOptions,
  type ResolvedExecutorOptions,
  resolveExecutorOptions,
} from './executor-options';
import { FifoGate } from './fifo-gate';
import { forkable, runForked } from './forked-run';
import { type ExecutionTiming, gated } from './gated';
import { type LanguageStatus, LanguageStatuses } from './language-statuses';

export type { LanguageStatus } from './language-statuses';
import { SandboxLauncher } from './sandbox-launcher';
import { PythonZygotes } from './python-zygotes';
import { RunBudget } from './run-budget';
import { SandboxPool } from './sandbox-pool';
import { interpreterCommand } from './session/interpreter';
import { type JupyterOutcome, runJupyterRequest } from './session/jupyter';
import { SessionManager } from './session/session-manager';
import { SessionZygotes } from './session/session-zygote';
import { sandboxProcessLimit, stepDriverCommand } from './step-driver';

/** A finished `/run_code`: SandboxFusion's response plus Fusebox's timing. */
export interface CodeExecution extends CodeRunOutcome {
  timing: ExecutionTiming;
}

/** A finished `/run_jupyter`: SandboxFusion's response plus Fusebox's timing. */
export interface JupyterExecution extends JupyterOutcome {
  timing: ExecutionTiming;
}

/** The executor's load now. */
export interface ExecutorStats {
  concurrency: number;
  running: number;
  waiting: number;
  warmSandboxes: number;
  /** Python zygotes ready to fork a run (see `pythonZygote`). */
  idleZygotes: number;
  /** Runs forked from a zygote since the executor started (the others ran cold). */
  forkedRuns: number;
  /** Whether a session zygote can fork a session now (see `pythonZygote`); without one, sessions start warm. */
  sessionZygoteReady: boolean;
  /** Sessions forked from a session zygote since the executor started (the others took a warm sandbox). */
  forkedSessions: number;
  sessions: number;
  /** What every sandbox together uses of the budget now (memory less droppable cache, in MB), with cgroups. */
  sandboxMemoryMB?: number;
  sandboxProcesses?: number;
}

const MB = 1024 * 1024;
/** Interpreters kept warm for /run_jupyter and new sessions; each idle one holds a Python process. */
const WARM_INTERPRETERS = 2;
/** Each sandbox's `cpu.shares` among its siblings: all equal, so running runs share the CPU fairly. */
const SANDBOX_CPU_SHARES = 1024;

/**
 * Runs code the way SandboxFusion does, in bubblewrap sandboxes on this machine: `runCode` and `runJupyter`
 * answer in SandboxFusion's exact shapes, and `sessions` keeps stateful interpreters. Executions are admitted by
 * what the running ones really use of the memory and process budget (see {@link RunBudget}), up to
 * `concurrency` at once, and share the CPU fairly (one `cpu.shares` each); the rest wait in FIFO order, up to
 * `queueLimit` of them and `queueTimeoutMs` each.
 *
 * @example
 * const executor = await createExecutor({ concurrency: 4 });
 * const { response } = await executor.runCode({ code: 'print(1)', language: 'python' });
 * console.log(response.run_result?.stdout); // "1\n"
 * await executor.close();
 */
export class Executor {
  /** Stateful interpreters, created and run by id. */
  readonly sessions: SessionManager;
  readonly options: ResolvedExecutorOptions;
  readonly #launcher: SandboxLauncher;
  readonly #gate: FifoGate;
  readonly #codePool: SandboxPool;
  readonly #interpreterPool: SandboxPool;
  /** Python runs forked from warm interpreters, when `pythonZygote` is on (and isolation too). */
  readonly #zygotes: PythonZygotes | undefined;
  /** Interpreter sessions forked from a zygote, when `pythonZygote` is on (and isolation too). */
  readonly #sessionZygotes: SessionZygotes | undefined;
  /** Aborts every execution in flight when the executor closes. */
  readonly #closing = new AbortController();
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #languages: LanguageStatuses;

  private constructor(launcher: SandboxLauncher, options: ResolvedExecutorOptions) {
    this.options = options;
    this.#launcher = launcher;
    this.#languages = new LanguageStatuses(launcher);
    const budget = new RunBudget(
      {
        memoryBytes: options.memoryBudgetMB * MB,
        runMemoryBytes: options.runMemoryMB * MB,
        headroomBytes: options.memoryHeadroomMB * MB,
        processes: options.processBudget,
        runProcesses: options.runProcesses,
      },
      () => launcher.usage(),
    );
    this.#gate = new FifoGate(options.concurrency, options.queueLimit, {
      budget,
      queueTimeoutMs: options.queueTimeoutMs,
    });
    const onError = (error: unknown) => options.warn(`sandbox: ${(error as Error).message}`);
    const fileSizeBytes = options.diskLimitMB * MB;
    const maxProcesses = sandboxProcessLimit(options.isolation, options.maxProcesses);
    this.#codePool = new SandboxPool(
      launcher,
      // The driver is pid 1, so the status and times it reports cannot be forged by the code it runs.
      { command: stepDriverCommand(fileSizeBytes, maxProcesses), init: true },
      options.warmSandboxes,
      onError,
    );
    this.#interpreterPool = new SandboxPool(
      launcher,
      { command: interpreterCommand(fileSizeBytes, maxProcesses), init: false },
      Math.min(options.warmSandboxes, WARM_INTERPRETERS),
      onError,
    );
    this.#zygotes =
      options.pythonZygote && options.isolation === 'bwrap'
        ? new PythonZygotes(
            launcher,
            {
              modules: options.pythonZygoteModules,
              maxRuns: options.pythonZygoteMaxRuns,
              maxAgeMs: options.pythonZygoteMaxAgeMs,
              waitMs: options.pythonZygoteWaitMs,
              runInit: options.pythonRunInit,
              diskBytes: fileSizeBytes,
              maxProcesses,
            },
            options.pythonZygotes,
            onError,
          )
        : undefined;
    // Sessions fork from a zygote of their own (with the kernel loaded), when Python runs do.
    this.#sessionZygotes = this.#zygotes
      ? new SessionZygotes(
          launcher,
          {
            modules: options.pythonZygoteModules,
            maxForks: options.pythonZygoteMaxRuns,
            maxAgeMs: options.pythonZygoteMaxAgeMs,
            diskBytes: fileSizeBytes,
            maxProcesses,
          },
          onError,
        )
      : undefined;
    this.sessions = new SessionManager(this.#interpreterPool, this.#sessionZygotes, this.#gate, {
      maxSessions: options.maxSessions,
      idleTimeoutMs: options.sessionIdleTimeoutMs,
      outputLimitBytes: options.outputLimitBytes,
    });
  }

  /**
   * Validates the options, checks that isolation works (throws `IsolationUnavailableError` if bubblewrap cannot
   * create namespaces, unless `isolation: 'none'`) and starts warming sandboxes.
   */
  static async create(options: ExecutorOptions = {}): Promise<Executor> {
    const resolved = resolveExecutorOptions(options);
    const launcher = await SandboxLauncher.create({
      isolation: resolved.isolation,
      diskBytes: resolved.diskLimitMB * MB,
      memoryCapBytes: resolved.memoryCapMB * MB,
      maxProcesses: resolved.maxProcesses,
      maxOpenFiles: resolved.maxOpenFiles,
      budget: {
        memoryBytes: resolved.memoryBudgetMB * MB,
        processes: resolved.processBudget,
        // At most the budget less one run's cap: a run refused below that found others holding more than a
        // whole run may, never just idle sandboxes and zygotes beside a lone run that filled the rest itself.
        perRun: {
          processes: Math.min(
            Math.floor(resolved.processBudget / resolved.concurrency),
            resolved.processBudget - resolved.maxProcesses,
          ),
          memoryBytes: Math.min(
            Math.floor((resolved.memoryBudgetMB * MB) / resolved.concurrency),
            (resolved.memoryBudgetMB - resolved.memoryCapMB) * MB,
          ),
        },
        cpuShares: resolved.cpuShares,
      },
      cpuShares: SANDBOX_CPU_SHARES,
      cpuCores: resolved.runCpuCores,
      sandboxUidBase: resolved.sandboxUidBase,
      sandboxUidBlock: resolved.sandboxUidBlock,
      sandboxUidLeaseDir: resolved.sandboxUidLeaseDir,
      seccompCacheDir: resolved.seccompCacheDir,
      sandboxStarts: resolved.sandboxStarts,
      outputLimitBytes: resolved.outputLimitBytes,
      warn: resolved.warn,
    });
    return new Executor(launcher, resolved);
  }

  /**
   * Runs a `/run_code` request. Resolves with SandboxFusion's response even for failures of the sandbox
   * (`SandboxError`). Rejects with a ZodError for an invalid request, `QueueFullError` when the queue is full,
   * `ExecutorClosedError` when the executor closes, or `signal.reason` when aborted (the run is killed).
   */
  async runCode(
    input: RunCodeRequestInput,
    { signal }: { signal?: AbortSignal } = {},
  ): Promise<CodeExecution> {
    const request = runCodeRequestSchema.parse(input);
    return this.#track(signal, async (aborted) => {
      const sandboxes = {
        launcher: this.#launcher,
        pool: this.#codePool,
        limits: { fetchLimitBytes: this.options.fetchLimitBytes },
      };
      const { result, timing } = await gated(
        this.#gate,
        async () =>
          (this.#zygotes && forkable(request)
            ? await runForked(request, this.#zygotes, { signal: aborted })
            : undefined) ?? runCodeRequest(request, sandboxes, { signal: aborted }),
        { signal: aborted },
      );
      return { ...result, timing };
    });
  }

  /**
   * Runs a `/run_jupyter` request; rejects like {@link Executor.runCode}. `lastCellOutput` keeps only the last
   * cell's stdout, stderr, display and errors: a session's replay of its earlier cells wants its new cell's
   * output, which theirs must neither crowd out of the request's budget nor pile up beside.
   */
  async runJupyter(
    input: RunJupyterRequestInput,
    { signal, lastCellOutput = false }: { signal?: AbortSignal; lastCellOutput?: boolean } = {},
  ): Promise<JupyterExecution> {
    const request = runJupyterRequestSchema.parse(input);
    const interpreters = {
      pool: this.#interpreterPool,
      zygotes: this.#sessionZygotes,
      outputLimitBytes: this.options.outputLimitBytes,
      requestOutputLimitBytes: this.options.jupyterOutputLimitBytes,
      fetchLimitBytes: this.options.fetchLimitBytes,
    };
    return this.#track(signal, async (aborted) => {
      const { result, timing } = await gated(
        this.#gate,
        async () => {
          try {
            return await runJupyterRequest(request, interpreters, { signal: aborted, lastCellOutput });
          } catch (error) {
            if (aborted.aborted) throw error;
            const message = error instanceof Error ? error.message : String(error);
            return { response: sandboxError(message), outputTruncated: false };
          }
        },
        { signal: aborted },
      );
      return { ...result, timing };
    });
  }

  /** Every SandboxFusion language: its toolchain's version, or why it cannot run here. */
  languages(): Promise<LanguageStatus[]> {
    return this.#languages.list();
  }

  stats(): ExecutorStats {
    return {
      concurrency: this.#gate.concurrency,
      running: this.#gate.running,
      waiting: this.#gate.waiting,
      warmSandboxes: this.#codePool.warm + this.#interpreterPool.warm,
      idleZygotes: this.#zygotes?.idle ?? 0,
      forkedRuns: this.#zygotes?.lent ?? 0,
      sessionZygoteReady: this.#sessionZygotes?.ready ?? false,
      forkedSessions: this.#sessionZygotes?.forked ?? 0,
      sessions: this.sessions.size,
      ...budgetUsage(this.#launcher),
    };
  }

  /**
   * Refuses new work, rejects what is queued, kills what is running (it rejects with ExecutorClosedError),
   * closes every session, waits for every sandbox to be cleaned up, and removes the executor's cgroups and
   * temporary files.
   */
  async close(): Promise<void> {
    this.#gate.close();
    this.#closing.abort(new ExecutorClosedError());
    await Promise.allSettled([this.sessions.closeAll(), ...this.#inFlight]);
    await Promise.all([
      this.#codePool.close(),
      this.#interpreterPool.close(),
      this.#zygotes?.close(),
      this.#sessionZygotes?.close(),
    ]);
    await this.#launcher.close();
  }

  /**
   * Runs an execution that `close()` can cut short: it gets a signal that aborts with the caller's reason, or
   * with ExecutorClosedError when the executor closes; `close()` waits for it to end.
   */
  async #track<T>(signal: AbortSignal | undefined, execute: (signal: AbortSignal) => Promise<T>): Promise<T> {
    // A signal of its own even without the caller's: every run listens to it, and listeners on the shared
    // closing signal would pile up with the runs in flight (Node warns past 10).
    const aborted = AbortSignal.any(signal ? [signal, this.#closing.signal] : [this.#closing.signal]);
    const running = execute(aborted);
    this.#inFlight.add(running);
    try {
      return await running;
    } finally {
      this.#inFlight.delete(running);
    }
  }
}

/**
 * Creates an {@link Executor}; see {@link Executor.create}.
 *
 * @example
 * const executor = await createExecutor({ isolation: 'bwrap', concurrency: 2 });
 */
export function createExecutor(options: ExecutorOptions = {}): Promise<Executor> {
  return Executor.create(options);
}

function budgetUsage(launcher: SandboxLauncher): Pick<ExecutorStats, 'sandboxMemoryMB' | 'sandboxProcesses'> {
  const usage = launcher.usage();
  return usage === undefined
    ? {}
    : { sandboxMemoryMB: Math.round(usage.memoryBytes / MB), sandboxProcesses: usage.processes };
}

function sandboxError(message: string): RunJupyterResponse {
  return { status: 'SandboxError', message, driver: null, cells: [], executor_pod_name: null, files: {} };
}
