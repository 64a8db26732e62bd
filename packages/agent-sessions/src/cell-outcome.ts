import { type CellExecution, DEAD_KERNEL_ERROR } from '@fusebox/local-sandbox/sessions';
import type { RunCodeResponse, RunJupyterResponse } from '@fusebox/sandbox-client/protocol';

/** One Python cell's result, whether it ran in the session's interpreter or in a one-off replay. */
export type CellOutcome = Pick<
  CellExecution,
  'status' | 'stdout' | 'stderr' | 'display' | 'error' | 'executionTime'
>;

const REPLAY_ENDED_TEXT =
  'an earlier cell of this session timed out or crashed the interpreter when replayed, so this one did not run; the state is lost';
const REPLAY_ENDED = {
  ename: DEAD_KERNEL_ERROR,
  evalue: REPLAY_ENDED_TEXT,
  traceback: [`${DEAD_KERNEL_ERROR}: ${REPLAY_ENDED_TEXT}`],
};

// eslint-disable-next-line no-control-regex -- the escape character is what is being matched
const ANSI_ESCAPE = /\x1b\[[0-9;]*m/g;

/**
 * The last cell of a `/run_jupyter` replay, as if it had run in a live interpreter: a total timeout (no cells
 * back) is a `timeout`, a sandbox error is `died`. An earlier cell that timed out or crashed the interpreter
 * ended the replay before the last one ran: the state is lost, as when an interpreter dies, so it is `died`
 * (never a `timeout` without its cause, which the session's own earlier code could pick). A request that failed with every cell back failed on its last
 * one, which timed out or crashed the interpreter (a cell that raises fails nothing): the interpreter wrote
 * that cell's only error, `TimeoutError` or `DeadKernelError`, so the cell's own code cannot pick which it was.
 */
export function lastCellOutcome(response: RunJupyterResponse, cellCount: number): CellOutcome {
  const cell = response.cells.length === cellCount ? response.cells.at(-1) : undefined;
  const executionTime = response.driver?.execution_time ?? 0;
  if (!cell) {
    const timedOut = response.status !== 'SandboxError' && response.driver?.status === 'TimeLimitExceeded';
    const endedEarly = response.status !== 'SandboxError' && !timedOut;
    return {
      status: timedOut ? 'timeout' : 'died',
      stdout: '',
      stderr: '',
      display: [],
      error: endedEarly ? [REPLAY_ENDED] : [],
      executionTime,
    };
  }
  if (response.status !== 'Success') {
    const died = cell.error.at(-1)?.ename === DEAD_KERNEL_ERROR;
    return { status: died ? 'died' : 'timeout', ...cell, executionTime };
  }
  return { status: cell.error.length > 0 ? 'error' : 'ok', ...cell, executionTime };
}

/**
 * A cell's result in `/run_code`'s shape, so cells and programs are described and stored alike: a raised
 * exception exits 1 with its traceback (colours removed) on stderr, an expression's value is printed, a timeout
 * is TimeLimitExceeded, and a crashed interpreter a SandboxError.
 */
export function cellAsRunResponse(cell: CellOutcome): RunCodeResponse {
  const values = cell.display
    .map((entry) => entry['text/plain'])
    .filter((value) => typeof value === 'string');
  const traceback =
    cell.status === 'error' ? cell.error.map((error) => `${error.traceback.join('\n')}\n`) : [];
  const run = {
    execution_time: cell.executionTime,
    stdout: cell.stdout + values.map((value) => `${value}\n`).join(''),
    stderr: (cell.stderr + traceback.join('')).replace(ANSI_ESCAPE, ''),
  };
  const base = { message: '', compile_result: null, executor_pod_name: null, files: {} };
  switch (cell.status) {
    case 'ok':
      return { ...base, status: 'Success', run_result: { status: 'Finished', return_code: 0, ...run } };
    case 'error':
      return { ...base, status: 'Failed', run_result: { status: 'Finished', return_code: 1, ...run } };
    case 'timeout':
      return {
        ...base,
        status: 'Failed',
        run_result: { status: 'TimeLimitExceeded', return_code: null, ...run },
      };
    case 'died':
      return {
        ...base,
        status: 'SandboxError',
        message: 'the Python session exited while running this code',
        run_result: { status: 'Error', return_code: null, ...run },
      };
  }
}
