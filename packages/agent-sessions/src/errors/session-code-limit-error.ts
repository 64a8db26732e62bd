import { SessionApiError } from './session-api-error';

/**
 * An action whose code would bring what its session's reward carries past FUSEBOX_SESSION_MAX_CODE_BYTES (a
 * stateful session's cells and the new code, or a fresh session's code; counted JSON-encoded): 409, recorded
 * against the session, which goes on. Every test of the reward gets that code, so without a cap a model that
 * writes megabytes of code each turn costs every later reward memory and event-loop time.
 */
export class SessionCodeLimitError extends SessionApiError {
  constructor(
    readonly sid: string,
    readonly maxCodeBytes: number,
    readonly codeBytes: number,
  ) {
    super(
      'FUSEBOX_SESSION_CODE_LIMIT',
      409,
      `session ${sid}: with this action, the code its reward's tests run would be ${codeBytes} bytes ` +
        `JSON-encoded, more than ${maxCodeBytes} (FUSEBOX_SESSION_MAX_CODE_BYTES); the action was not run. ` +
        'Shorter code is taken, and /compute_reward still works',
    );
  }
}
