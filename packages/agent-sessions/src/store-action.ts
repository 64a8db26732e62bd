import type { PrismaClient } from '@fusebox/db/client';
import { uuidV7 } from '@fusebox/rollouts';
import type { ExecutionRow, SessionSandbox } from './session-sandbox';

/** One /process_action as stored: the action, the executions it took (its own last) and its effect on the session. */
export interface StoredAction {
  sid: string;
  seq: number;
  content: string;
  code: string;
  observation: string;
  status: string;
  returnCode: number | null;
  durationMs: number;
  executions: ExecutionRow[];
  /** A stateful session lost its interpreter state: also recorded as a warning event. */
  stateLost: boolean;
}

/**
 * Stores actions in one statement, before their observations are answered: each action's execution rows, the
 * action linked to the last of them, its session's count and last-action time, and a warning for a lost state.
 * One round trip instead of a Prisma transaction's five per action keeps the API's own time per action low, and
 * the AgentSessions batcher hands it every action that finished meanwhile, so a busy server commits once for many.
 * The actions must be of different sessions (a session runs one action at a time).
 *
 * The commit does not wait for the WAL to reach the disk (`synchronous_commit` off for this statement alone, as
 * the rollout import does): the rows are committed and visible to every reader before the answer, but a crash of
 * the Postgres server itself within a fraction of a second could lose the last actions. That saves about 0.4 ms
 * of every action's answer, a fifth of the API's own time per action.
 */
export async function storeActions(
  prisma: PrismaClient,
  executionColumns: SessionSandbox['executionColumns'],
  actions: StoredAction[],
): Promise<void[]> {
  const now = new Date();
  const executions: Record<string, unknown>[] = [];
  const rows = actions.map((action) => {
    const own = action.executions.map((row) => ({ ...row, id: uuidV7(), sessionId: action.sid }));
    executions.push(...own.map(executionColumns));
    return {
      id: uuidV7(),
      session_id: action.sid,
      seq: action.seq,
      content: action.content,
      code: action.code,
      observation: action.observation,
      status: action.status,
      return_code: action.returnCode,
      duration_ms: action.durationMs,
      execution_id: own.at(-1)?.id ?? null,
      created_at: now,
    };
  });
  const warnings = actions
    .filter((action) => action.stateLost)
    .map((action) => ({
      id: uuidV7(),
      session_id: action.sid,
      level: 'warning',
      route: '/process_action',
      message: `action ${action.seq} ended with ${action.status}: the interpreter was restarted and its state is lost`,
      created_at: now,
    }));
  const stored = JSON.stringify(rows);
  const updated = await prisma.$executeRaw`
    WITH relaxed AS (
      -- Local to this statement's transaction; joined below so that it runs.
      SELECT set_config('synchronous_commit', 'off', true)
    ), executions AS (
      INSERT INTO execution SELECT * FROM json_populate_recordset(NULL::execution, ${JSON.stringify(executions)}::json)
    ), actions AS (
      INSERT INTO action SELECT * FROM json_populate_recordset(NULL::action, ${stored}::json)
    ), warnings AS (
      INSERT INTO session_event SELECT * FROM json_populate_recordset(NULL::session_event, ${JSON.stringify(warnings)}::json)
    )
    UPDATE session SET action_count = stored.seq, last_action_at = stored.created_at, updated_at = stored.created_at
    FROM json_populate_recordset(NULL::action, ${stored}::json) AS stored, relaxed
    WHERE session.id = stored.session_id`;
  if (updated !== actions.length) throw new Error('a session was deleted while its action was being stored');
  return actions.map(() => undefined);
}
