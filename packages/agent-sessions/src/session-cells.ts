import { storableText } from '@fusebox/db/storable';

/**
 * Bytes a piece of a session's code takes where a reward's tests (and a replay) carry it: its stored form,
 * JSON-encoded, in which a control character is six bytes (`\u0001`) and a NUL's stand-in three.
 */
export function replayBytes(code: string): number {
  return Buffer.byteLength(JSON.stringify(storableText(code)));
}

/** Action statuses after which a stateful session's interpreter is gone: it timed out or crashed. */
const STATE_ENDING = new Set(['timeout', 'sandbox_error']);

/** Whether an action that ended this way lost a stateful session's state. */
export function endsState(status: string): boolean {
  return STATE_ENDING.has(status);
}

/**
 * The code that builds a stateful session's current state: the actions since the last one that lost it, in
 * order. Replaying them restores the state after a restart, and the reward's tests run after them.
 */
export function stateCells(actions: readonly { code: string | null; status: string }[]): string[] {
  const cells: string[] = [];
  for (const action of actions) {
    if (endsState(action.status)) cells.length = 0;
    else if (action.code !== null) cells.push(action.code);
  }
  return cells;
}
