import { SessionApiError } from './session-api-error';

/** This process already holds FUSEBOX_AGENT_SESSION_MAX active sessions: 503 with Retry-After. */
export class SessionsFullError extends SessionApiError {
  constructor(
    readonly maxSessions: number,
    readonly retryAfterSeconds: number,
  ) {
    super(
      'FUSEBOX_SESSION_LIMIT',
      503,
      `${maxSessions} agent sessions are active (FUSEBOX_AGENT_SESSION_MAX); postprocess finished ones or retry ` +
        `in ${retryAfterSeconds} s`,
    );
  }
}
