import type { PrismaClient } from '@fusebox/db/client';
import { uuidV7 } from '@fusebox/rollouts';
import type { SearchRecord } from './search-session';
import type { ExecutionRow, SessionSandbox } from './session-sandbox';

/** One /process_action as stored: the action, the executions it took (its own last) and its effect on the session. */
export interface StoredAction {
  sid: string;
  /**
   * The number this process expects the action to get, when the action depends on state only this process
   * holds (a stateful session's interpreter): the action is then stored only if nobody else stored one since.
   * Undefined: it takes the next number, whatever it is.
   */
  expectedSeq: number | undefined;
  content: string;
  code: string;
  observation: string;
  /** What a search action searched and got back; null for any other action. */
  search: SearchRecord | null;
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
 * the AgentSessions group commit hands it every action that finished meanwhile, so a busy server commits once
 * for many. The actions must be of different sessions (a session runs one action at a time in a process).
 *
 * Each action's number comes from its session's row, which the statement updates (and so locks): whichever
 * process stores a session's actions, and in whatever order they arrive, they are numbered 1, 2, 3… without a
 * gap or a duplicate. Resolves to each action's number, or undefined for one not stored: its session is no
 * longer active, already holds `maxActions` actions, or it had an `expectedSeq` and another process stored an action of that session meanwhile.
 *
 * The commit is durable before the answer (synchronous_commit as the server has it, on by default): an action
 * answered survives a crash of Fusebox or of Postgres. Group commit, not a relaxed commit, keeps that cheap.
 */
export async function storeActions(
  prisma: PrismaClient,
  executionColumns: SessionSandbox['executionColumns'],
  actions: StoredAction[],
  maxActions: number,
): Promise<(number | undefined)[]> {
  const now = new Date();
  const executions: Record<string, unknown>[] = [];
  const rows = actions.map((action) => {
    const own = action.executions.map((row) => ({ ...row, id: uuidV7(), sessionId: action.sid }));
    executions.push(...own.map(executionColumns));
    return {
      id: uuidV7(),
      session_id: action.sid,
      // Read back as the expected number; the stored one comes from the session's row.
      seq: action.expectedSeq ?? null,
      content: action.content,
      code: action.code,
      observation: action.observation,
      search: action.search,
      status: action.status,
      return_code: action.returnCode,
      duration_ms: action.durationMs,
      execution_id: own.at(-1)?.id ?? null,
      created_at: now,
    };
  });
  const lost = actions
    .filter((action) => action.stateLost)
    .map((action) => ({ id: uuidV7(), session_id: action.sid }));
  const numbered = await prisma.$queryRaw<{ session_id: string; seq: number }[]>`
    WITH stored AS (
      SELECT * FROM json_populate_recordset(NULL::action, ${JSON.stringify(rows)}::json)
    ), numbered AS (
      UPDATE session SET
        action_count = session.action_count + 1,
        last_action_at = stored.created_at,
        updated_at = stored.created_at
      FROM stored
      WHERE session.id = stored.session_id
        AND session.state = 'active'
        AND session.action_count < ${maxActions}
        AND (stored.seq IS NULL OR session.action_count + 1 = stored.seq)
      RETURNING session.id AS session_id, session.action_count AS seq
    ), executions AS (
      INSERT INTO execution SELECT * FROM json_populate_recordset(NULL::execution, ${JSON.stringify(executions)}::json)
    ), actions AS (
      INSERT INTO action (id, session_id, seq, content, code, observation, search, status, return_code, duration_ms, execution_id, created_at)
      SELECT stored.id, stored.session_id, numbered.seq, stored.content, stored.code, stored.observation, stored.search, stored.status,
        stored.return_code, stored.duration_ms, stored.execution_id, stored.created_at
      FROM stored JOIN numbered USING (session_id)
    ), warnings AS (
      INSERT INTO session_event (id, session_id, level, route, message, created_at)
      SELECT lost.id, lost.session_id, 'warning', '/process_action',
        format('action %s ended with %s: the interpreter was restarted and its state is lost', numbered.seq, stored.status),
        stored.created_at
      FROM json_to_recordset(${JSON.stringify(lost)}::json) AS lost (id uuid, session_id text)
      JOIN numbered USING (session_id) JOIN stored USING (session_id)
    )
    SELECT session_id, seq FROM numbered`;
  const seqs = new Map(numbered.map((row) => [row.session_id, Number(row.seq)]));
  return actions.map((action) => seqs.get(action.sid));
}
