import type { StoredTask } from '@fusebox/tasks';

/** What this process keeps of an active session between its requests. */
export interface LiveSession {
  id: string;
  task: StoredTask;
  /** Actions stored so far: the next one is number actionCount + 1. */
  actionCount: number;
  /** Stateful sessions: the code that built the interpreter's current state (see stateCells). */
  cells: string[];
  /** Stateful sessions: the cells' size as a reward carries them (see replayBytes), summed. */
  cellBytes: number;
  /** Stateful sessions: the executor session holding the interpreter, while one is open. */
  interpreter: string | undefined;
}
