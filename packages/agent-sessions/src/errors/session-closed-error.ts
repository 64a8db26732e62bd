import { SessionApiError } from './session-api-error';

/** An action for a session that was postprocessed or expired: 409. Rewards can still be computed. */
export class SessionClosedError extends SessionApiError {
  constructor(
    readonly sid: string,
    readonly state: string,
  ) {
    super(
      'FUSEBOX_SESSION_CLOSED',
      409,
      `session ${sid} is ${state} and takes no more actions; /compute_reward still works`,
    );
  }
}
