import type { JupyterCell, RunJupyterRequest, RunJupyterResponse } from '@fusebox/sandbox-client/protocol';
import type { SandboxPool } from '../sandbox-pool';
import type { SessionZygotes } from './session-zygote';
import { fetchFiles, resolveFetchPaths, writeFiles } from '../workdir-files';
import { type CellResult, Interpreter } from './interpreter';
import { JupyterOutputBudget } from './jupyter-output-budget';
import { within } from '../step-timer';

/**
 * SandboxFusion's kernel counts its own health-check cell as `In [1]`, so the request's first cell is `In [2]`;
 * tracebacks here number cells the same way.
 */
const FIRST_CELL = 2;
/** How long a forked request's answer waits for its killed kernel to be reaped; the zygote cleans up after it. */
const REAP_WAIT_MS = 5_000;

export interface JupyterOutcome {
  response: RunJupyterResponse;
  outputTruncated: boolean;
}

/**
 * `/run_jupyter` on a session interpreter instead of a Jupyter kernel: the cells run in order in one
 * interpreter; a cell that raises fills its `error` and later cells still run (status `Success`). Running past
 * `total_timeout` gives `Failed` with no cells, as SandboxFusion does. A cell past `cell_timeout` (when > 0) or
 * one that crashes the interpreter ends the request: `Failed`, with the cells run so far, or `SandboxError` when
 * that cell timed out or crashed because other runs filled the budget all sandboxes share.
 */
export async function runJupyterRequest(
  request: RunJupyterRequest,
  interpreters: {
    pool: SandboxPool;
    /** Where a request without `fetch_files` forks its interpreter, when it can (its tmpfs dies with it). */
    zygotes: SessionZygotes | undefined;
    outputLimitBytes: number;
    requestOutputLimitBytes: number;
    fetchLimitBytes: number;
  },
  { signal, lastCellOutput = false }: { signal?: AbortSignal; lastCellOutput?: boolean } = {},
): Promise<JupyterOutcome> {
  const started = performance.now();
  const deadline = started + request.total_timeout * 1000;
  const forked =
    request.fetch_files.length === 0 ? await interpreters.zygotes?.fork(request.files) : undefined;
  if (forked) {
    try {
      return await runCells(request, new Interpreter(forked, interpreterSettings(request, interpreters)), {
        started,
        deadline,
        requestOutputLimitBytes: interpreters.requestOutputLimitBytes,
        signal,
        lastCellOutput,
        // Reaped before the answer, as a warm sandbox is: its time and memory are over when the client hears.
        finish: async () => {
          await within(forked.closed, REAP_WAIT_MS);
          return {};
        },
      });
    } finally {
      interpreters.zygotes?.release(forked);
    }
  }
  const sandbox = await interpreters.pool.take();
  try {
    const fetchPaths = resolveFetchPaths(sandbox.workdir, request.fetch_files);
    await writeFiles(sandbox.workdir, request.files);
    return await runCells(request, new Interpreter(sandbox, interpreterSettings(request, interpreters)), {
      started,
      deadline,
      requestOutputLimitBytes: interpreters.requestOutputLimitBytes,
      signal,
      lastCellOutput,
      finish: async () => {
        await sandbox.closed;
        return fetchFiles(sandbox.workdir, fetchPaths, interpreters.fetchLimitBytes);
      },
    });
  } finally {
    interpreters.pool.release(sandbox);
  }
}

function interpreterSettings(request: RunJupyterRequest, interpreters: { outputLimitBytes: number }) {
  return {
    outputLimitBytes: interpreters.outputLimitBytes,
    memoryLimitBytes: request.memory_limit_MB > 0 ? request.memory_limit_MB * 1024 * 1024 : undefined,
    firstCell: FIRST_CELL,
  };
}

/**
 * Runs the request's cells in `interpreter`, stops it, and answers; `finish` (once the interpreter is stopped)
 * gives the fetched files.
 */
async function runCells(
  request: RunJupyterRequest,
  interpreter: Interpreter,
  {
    started,
    deadline,
    requestOutputLimitBytes,
    signal,
    lastCellOutput,
    finish,
  }: {
    started: number;
    deadline: number;
    requestOutputLimitBytes: number;
    signal: AbortSignal | undefined;
    lastCellOutput: boolean;
    finish: () => Promise<Record<string, string>>;
  },
): Promise<JupyterOutcome> {
  const cells: JupyterCell[] = [];
  const budget = new JupyterOutputBudget(requestOutputLimitBytes);
  let outputTruncated = false;
  /** The cell that timed out or crashed the interpreter, which ends the request. */
  let ending: CellResult | undefined;
  for (const [index, code] of request.cells.entries()) {
    const quiet = lastCellOutput && index < request.cells.length - 1;
    const remainingMs = deadline - performance.now();
    const cellLimited = request.cell_timeout > 0 && request.cell_timeout * 1000 < remainingMs;
    const result = await interpreter.run(code, {
      timeoutMs: cellLimited ? request.cell_timeout * 1000 : remainingMs,
      signal,
    });
    if (result.status === 'timeout' && !cellLimited) {
      const timedOut = response('Failed', performance.now() - started, 'TimeLimitExceeded', [], {});
      return { response: starvedOr(timedOut, result.starved), outputTruncated };
    }
    const { stdout, stderr, display, error } = result;
    cells.push(
      quiet
        ? { stdout: '', stderr: '', display: [], error: [] }
        : budget.spend({ stdout, stderr, display, error }),
    );
    outputTruncated ||= (!quiet && result.outputTruncated) || budget.cut;
    if (result.status === 'timeout' || result.status === 'died') {
      ending = result;
      break;
    }
  }
  interpreter.stop();
  const files = await finish();
  const outcome = response(
    ending ? 'Failed' : 'Success',
    performance.now() - started,
    'Finished',
    cells,
    files,
  );
  return { response: starvedOr(outcome, ending?.starved), outputTruncated };
}

/**
 * As for /run_code (runStatus): a request that fails because a cell timed out or died while other runs starved
 * its sandbox of the budget all sandboxes share says nothing about the model's code (Interpreter sets `starved`
 * only for what the kernel did while that cell ran). One that succeeded, with cells that raised, keeps its
 * Success: the errors are in its cells for the client to judge, as SandboxFusion's are.
 */
function starvedOr(outcome: RunJupyterResponse, starved: string | undefined): RunJupyterResponse {
  return starved === undefined ? outcome : { ...outcome, status: 'SandboxError', message: starved };
}

function response(
  status: 'Success' | 'Failed',
  elapsedMs: number,
  driverStatus: 'Finished' | 'TimeLimitExceeded',
  cells: JupyterCell[],
  files: Record<string, string>,
): RunJupyterResponse {
  return {
    status,
    message: '',
    driver: {
      status: driverStatus,
      execution_time: elapsedMs / 1000,
      return_code: driverStatus === 'Finished' ? 0 : null,
      stdout: '',
      stderr: '',
    },
    cells,
    executor_pod_name: null,
    files,
  };
}
