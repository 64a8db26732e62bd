import type { Prisma } from '@fusebox/db/prisma';
import type { Executor } from '@fusebox/local-sandbox/executor';
import type { RunCodeRequest, RunCodeResponse, RunJupyterRequest } from '@fusebox/sandbox-client/protocol';
import type { CellOutcome } from './cell-outcome';

/** One row of the `execution` table, as `createMany` takes it. */
export type ExecutionRow = Prisma.ExecutionCreateManyInput;

/** A run under a global permit: its result as `/run_code` words it, and its `execution` row. */
export interface GatedRun {
  response: RunCodeResponse;
  row: ExecutionRow;
}

/**
 * How sessions reach the sandbox, as the host provides it: the executor's interpreters, and runs behind the
 * global gate every execution passes through (the same one as /run_code), so agent sessions and plain runs
 * share one cluster-wide concurrency limit. The host also owns how an execution row maps to the table's
 * columns, which sessions need to store an action's executions in the same statement as the action.
 */
export interface SessionSandbox {
  executor: Executor;
  /** Runs a program (`/run_code`); a lost permit is a SandboxError. */
  runProgram(request: RunCodeRequest): Promise<GatedRun>;
  /** Runs cells in a one-off interpreter (`/run_jupyter`) and answers the last cell's result. */
  runReplay(request: RunJupyterRequest): Promise<GatedRun & { cell: CellOutcome }>;
  /** Runs a cell in a session's interpreter; a lost permit comes back as a crashed cell (`died`). */
  runCell(interpreter: string, code: string, timeoutMs: number): Promise<GatedRun & { cell: CellOutcome }>;
  /** The row keyed by column name, every column present and left-out ones at their defaults. */
  executionColumns: (row: ExecutionRow) => Record<string, unknown>;
}
