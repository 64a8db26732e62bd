import { LocalSandboxError } from './local-sandbox-error';

/**
 * No open session has this id: it never existed, was closed, or expired after its idle timeout.
 *
 * @example
 * if (error instanceof SessionNotFoundError) return reply.code(404).send({ detail: error.message });
 */
export class SessionNotFoundError extends LocalSandboxError {
  readonly sessionId: string;

  constructor(sessionId: string) {
    super(
      'FUSEBOX_LOCAL_SANDBOX_SESSION_NOT_FOUND',
      `no open session ${JSON.stringify(sessionId)} (closed or expired)`,
    );
    this.sessionId = sessionId;
  }
}
