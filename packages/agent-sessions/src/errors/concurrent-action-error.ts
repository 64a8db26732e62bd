import { SessionApiError } from './session-api-error';

/**
 * Actions of one session arrived at two processes at once, so one could not be stored in order: 409. verl sends
 * a session's actions one after another; a client that does not must wait for each answer.
 */
export class ConcurrentActionError extends SessionApiError {
  constructor(readonly sid: string) {
    super(
      'FUSEBOX_SESSION_CONCURRENT_ACTION',
      409,
      `another action of session ${sid} was stored while this one ran; send a session's actions one at a time`,
    );
  }
}
