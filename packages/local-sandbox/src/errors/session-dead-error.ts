import { LocalSandboxError } from './local-sandbox-error';

/**
 * The session's interpreter is gone (a cell timed out or crashed it); its state is lost. Restart the session
 * to get a fresh interpreter under the same id.
 *
 * @example
 * if (error instanceof SessionDeadError) await session.restart();
 */
export class SessionDeadError extends LocalSandboxError {
  readonly sessionId: string;

  constructor(sessionId: string, reason: string) {
    super(
      'FUSEBOX_LOCAL_SANDBOX_SESSION_DEAD',
      `session ${sessionId} has no interpreter (${reason}); restart it`,
    );
    this.sessionId = sessionId;
  }
}
