import { SessionApiError } from './session-api-error';

/**
 * An action of a stateful session whose code would bring its state's code past FUSEBOX_SESSION_MAX_CODE_BYTES:
 * 409, recorded against the session, which goes on. Every test of the reward replays that code in a fresh
 * interpreter, so the server holds all of it and sends it once per test: without a cap, a model that writes
 * megabytes of code each turn costs every later reward memory and event-loop time.
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
      `session ${sid}: with this action, the code its state replays would be ${codeBytes} bytes, more than ` +
        `${maxCodeBytes} (FUSEBOX_SESSION_MAX_CODE_BYTES); the action was not run. Shorter code is taken, ` +
        'and /compute_reward still works',
    );
  }
}
