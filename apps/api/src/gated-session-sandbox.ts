import {
  type CellOutcome,
  type GatedRun,
  type SessionSandbox,
  cellAsRunResponse,
  lastCellOutcome,
} from '@fusebox/agent-sessions';
import type { Executor } from '@fusebox/local-sandbox/executor';
import type { RunCodeRequest, RunJupyterRequest } from '@fusebox/sandbox-client/protocol';
import type { ExecutionGate } from './execution-gate';
import { executionColumns } from './execution-recorder';
import { lostCodeExecution, lostJupyterExecution } from './lost-permit';
import { cellRow, lostCellRow, runCodeRow, runJupyterRow } from './sandbox-execution-rows';

/**
 * A session's run is never cancelled by its client going away: an action that ran is stored and counted, as
 * the model's turn happened. Only a lost global permit aborts it.
 */
const UNCANCELLED = new AbortController().signal;

/** Agent sessions' way to the sandbox: the server's executor, behind its global gate. */
export function gatedSessionSandbox(executor: Executor, gate: ExecutionGate): SessionSandbox {
  const sandbox = { executor, gate };
  return {
    executor,
    runProgram: (request) => runProgram(sandbox, request),
    runReplay: (request) => runReplay(sandbox, request),
    runCell: (interpreter, code, timeoutMs) => runCell(sandbox, interpreter, code, timeoutMs),
    executionColumns,
  };
}

interface GatedExecutor {
  executor: Executor;
  gate: ExecutionGate;
}

/** Runs a program (`/run_code`) under a global permit; a lost permit is a SandboxError. */
async function runProgram(sandbox: GatedExecutor, request: RunCodeRequest): Promise<GatedRun> {
  const { executor, gate } = sandbox;
  const outcome = await gate.run((signal) => executor.runCode(request, { signal }), { signal: UNCANCELLED });
  const execution = outcome.lost ? lostCodeExecution(outcome.lost, outcome.timing) : outcome.execution;
  return { response: execution.response, row: { ...runCodeRow(request, execution), limiterKey: gate.key } };
}

/**
 * Runs cells in a one-off interpreter (`/run_jupyter`) under a global permit and answers the last cell's
 * result, as if it had run after the others in a live session.
 */
async function runReplay(
  sandbox: GatedExecutor,
  request: RunJupyterRequest,
): Promise<GatedRun & { cell: CellOutcome }> {
  const { executor, gate } = sandbox;
  const outcome = await gate.run((signal) => executor.runJupyter(request, { signal, lastCellOutput: true }), {
    signal: UNCANCELLED,
  });
  const execution = outcome.lost ? lostJupyterExecution(outcome.lost, outcome.timing) : outcome.execution;
  const cell = lastCellOutcome(execution.response, request.cells.length);
  return {
    cell,
    response: cellAsRunResponse(cell),
    row: { ...runJupyterRow(request, execution), limiterKey: gate.key },
  };
}

/**
 * Runs a cell in a session's interpreter under a global permit. A lost permit stops the interpreter, so it
 * comes back as a crashed cell (`died`): the session's state is gone. Throws the executor's errors (the
 * interpreter was closed meanwhile: SessionNotFoundError).
 */
async function runCell(
  sandbox: GatedExecutor,
  interpreter: string,
  code: string,
  timeoutMs: number,
): Promise<GatedRun & { cell: CellOutcome }> {
  const { executor, gate } = sandbox;
  const outcome = await gate.run(
    (signal) => executor.sessions.run(interpreter, code, { timeoutMs, signal }),
    {
      signal: UNCANCELLED,
    },
  );
  if (outcome.lost) {
    const cell: CellOutcome = {
      status: 'died',
      stdout: '',
      stderr: '',
      display: [],
      error: [],
      executionTime: 0,
    };
    const lost = lostCodeExecution(outcome.lost, outcome.timing).response;
    return {
      cell,
      response: lost,
      row: { ...lostCellRow(code, outcome.lost, outcome.timing), limiterKey: gate.key },
    };
  }
  const cell = outcome.execution;
  return { cell, response: cellAsRunResponse(cell), row: { ...cellRow(code, cell), limiterKey: gate.key } };
}
