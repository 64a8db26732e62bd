import { type Executor, createExecutor } from '@fusebox/local-sandbox/executor';
import { IsolationUnavailableError } from '@fusebox/local-sandbox/errors';
import type { Env } from './env';

/**
 * The local executor configured from the environment. When bubblewrap cannot isolate code it throws
 * IsolationUnavailableError, whose message then also names the variable that turns isolation off.
 */
export async function createServerExecutor(env: Env): Promise<Executor> {
  try {
    return await createExecutor({
      concurrency: env.FUSEBOX_EXECUTOR_CONCURRENCY,
      queueLimit: env.FUSEBOX_EXECUTOR_QUEUE_LIMIT,
      queueTimeoutMs: Math.round(env.FUSEBOX_EXECUTOR_QUEUE_TIMEOUT_S * 1000),
      ...(env.FUSEBOX_EXECUTOR_MEMORY_BUDGET_MB === undefined
        ? {}
        : { memoryBudgetMB: env.FUSEBOX_EXECUTOR_MEMORY_BUDGET_MB }),
      runMemoryMB: env.FUSEBOX_EXECUTOR_RUN_MEMORY_MB,
      memoryHeadroomMB: env.FUSEBOX_EXECUTOR_MEMORY_HEADROOM_MB,
      processBudget: env.FUSEBOX_EXECUTOR_PROCESS_BUDGET,
      runProcesses: env.FUSEBOX_EXECUTOR_RUN_PROCESSES,
      cpuShares: env.FUSEBOX_EXECUTOR_CPU_SHARES,
      runCpuCores: env.FUSEBOX_EXECUTOR_RUN_CPU_CORES,
      isolation: env.FUSEBOX_EXECUTOR_ISOLATION,
      outputLimitBytes: env.FUSEBOX_EXECUTOR_OUTPUT_LIMIT_BYTES,
      jupyterOutputLimitBytes: env.FUSEBOX_EXECUTOR_JUPYTER_OUTPUT_LIMIT_BYTES,
      memoryCapMB: env.FUSEBOX_EXECUTOR_MEMORY_CAP_MB,
      diskLimitMB: env.FUSEBOX_EXECUTOR_DISK_LIMIT_MB,
      maxProcesses: env.FUSEBOX_EXECUTOR_MAX_PROCESSES,
      maxOpenFiles: env.FUSEBOX_EXECUTOR_MAX_OPEN_FILES,
      ...(env.FUSEBOX_EXECUTOR_SANDBOX_STARTS === undefined
        ? {}
        : { sandboxStarts: env.FUSEBOX_EXECUTOR_SANDBOX_STARTS }),
      sandboxUidBase: env.FUSEBOX_SANDBOX_UID_BASE,
      sandboxUidBlock: env.FUSEBOX_SANDBOX_UID_BLOCK,
      maxSessions: env.FUSEBOX_SESSION_MAX,
      sessionIdleTimeoutMs: env.FUSEBOX_SESSION_IDLE_TIMEOUT_S * 1000,
      pythonZygote: env.FUSEBOX_PYTHON_ZYGOTE === 'on',
      pythonZygotes: Math.min(env.FUSEBOX_PYTHON_ZYGOTES, env.FUSEBOX_EXECUTOR_CONCURRENCY),
      ...(env.FUSEBOX_PYTHON_ZYGOTE_MODULES
        ? { pythonZygoteModules: env.FUSEBOX_PYTHON_ZYGOTE_MODULES }
        : {}),
      pythonZygoteMaxRuns: env.FUSEBOX_PYTHON_ZYGOTE_MAX_RUNS,
      pythonZygoteMaxAgeMs: env.FUSEBOX_PYTHON_ZYGOTE_MAX_AGE_S * 1000,
      pythonZygoteWaitMs: env.FUSEBOX_PYTHON_ZYGOTE_WAIT_MS,
      ...(env.FUSEBOX_PYTHON_RUN_INIT === 'off' ? { pythonRunInit: null } : {}),
      warn: (message) => console.warn(`WARNING: ${message}`),
    });
  } catch (error) {
    if (error instanceof IsolationUnavailableError) {
      error.message += ' To run code without isolation anyway, set FUSEBOX_EXECUTOR_ISOLATION=none.';
    }
    throw error;
  }
}
