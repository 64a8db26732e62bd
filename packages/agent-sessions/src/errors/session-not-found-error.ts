import { SessionApiError } from './session-api-error';

/** No session has this sid: 404. */
export class SessionNotFoundError extends SessionApiError {
  constructor(readonly sid: string) {
    super('FUSEBOX_SESSION_NOT_FOUND', 404, `no session has sid ${sid}; start one with /start_instance`);
  }
}
