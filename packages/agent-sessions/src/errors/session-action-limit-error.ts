import { SessionApiError } from './session-api-error';

/**
 * A session that already holds FUSEBOX_SESSION_MAX_ACTIONS actions: 409, and the refusal is recorded against
 * it. Without a cap, a model that never ends its episode grows one session (and its page) without bound; the
 * session and its actions stay, and /compute_reward still works.
 */
export class SessionActionLimitError extends SessionApiError {
  constructor(
    readonly sid: string,
    readonly maxActions: number,
  ) {
    super(
      'FUSEBOX_SESSION_ACTION_LIMIT',
      409,
      `session ${sid} has ${maxActions} actions, the most a session takes (FUSEBOX_SESSION_MAX_ACTIONS); ` +
        'end it with /postprocess; /compute_reward still works',
    );
  }
}
