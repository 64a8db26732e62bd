import { SessionDeadError, SessionLimitError, SessionNotFoundError } from '@fusebox/local-sandbox/errors';
import { type RunCodeResponse, runJupyterRequestSchema } from '@fusebox/sandbox-client/protocol';
import type { LiveSession } from './live-session';
import { programRequest } from './program-request';
import { restoreSource } from './restore-source';
import type { ExecutionRow, SessionSandbox } from './session-sandbox';

/** One action's run: the result in `/run_code`'s shape and the executions it took (the action's own last). */
export interface ActionRun {
  response: RunCodeResponse;
  rows: ExecutionRow[];
}

/**
 * Runs an action's code for a session. Fresh sessions run it as a new program. Stateful sessions run it as a
 * cell in the session's interpreter, opened on first use (and, after a restart of Fusebox or an expiry of the
 * interpreter, restored by replaying the session's earlier cells). When the executor has no interpreter to
 * spare, the cell runs in a one-off replay of the session's cells, so the action still sees its state.
 */
export async function runAction(
  sandbox: SessionSandbox,
  live: LiveSession,
  code: string,
  idleTimeoutMs: number,
): Promise<ActionRun> {
  const { task } = live;
  const { runTimeoutS, memoryLimitMB } = task.settings;
  if (task.sessionMode === 'fresh') {
    const run = await sandbox.runProgram(programRequest(task, code));
    return { response: run.response, rows: [run.row] };
  }

  const rows: ExecutionRow[] = [];
  for (let attempt = 0; attempt < 2; attempt += 1) {
    live.interpreter ??= await openInterpreter(sandbox, live, idleTimeoutMs, rows);
    if (live.interpreter === undefined) break;
    try {
      const run = await sandbox.runCell(live.interpreter, code, runTimeoutS * 1000);
      rows.push(run.row);
      return { response: run.response, rows };
    } catch (error) {
      // The executor closed the interpreter (its own idle timeout, or a shutdown), or it died between two
      // actions (the model's code can leave something behind that ends it): open another and go on.
      if (error instanceof SessionDeadError) sandbox.executor.sessions.close(live.interpreter);
      else if (!(error instanceof SessionNotFoundError)) throw error;
      live.interpreter = undefined;
    }
  }
  const run = await sandbox.runReplay(
    runJupyterRequestSchema.parse({
      cells: [...live.cells, code],
      cell_timeout: runTimeoutS,
      total_timeout: runTimeoutS * (live.cells.length + 1),
      memory_limit_MB: memoryLimitMB,
      files: task.setupFiles,
    }),
  );
  rows.push(run.row);
  return { response: run.response, rows };
}

/**
 * Opens an interpreter for a stateful session and replays its cells into it, quietly; undefined when the
 * executor holds its maximum of interpreters or the replay does not finish.
 */
async function openInterpreter(
  sandbox: SessionSandbox,
  live: LiveSession,
  idleTimeoutMs: number,
  rows: ExecutionRow[],
): Promise<string | undefined> {
  const { settings, setupFiles } = live.task;
  let id: string;
  try {
    ({ id } = await sandbox.executor.sessions.create({
      memoryLimitMB: settings.memoryLimitMB,
      cellTimeoutMs: settings.runTimeoutS * 1000,
      idleTimeoutMs,
      files: setupFiles,
    }));
  } catch (error) {
    if (error instanceof SessionLimitError) return undefined;
    throw error;
  }
  if (live.cells.length === 0) return id;
  const restore = await sandbox.runCell(
    id,
    restoreSource(live.cells),
    settings.runTimeoutS * 1000 * live.cells.length,
  );
  rows.push(restore.row);
  if (restore.cell.status === 'ok') return id;
  sandbox.executor.sessions.close(id);
  return undefined;
}
