import { LocalSandboxError } from './local-sandbox-error';

/**
 * A session runs one cell at a time and one is already running; cells of one session must be sent in order.
 *
 * @example
 * if (error instanceof SessionBusyError) return reply.code(409).send({ detail: error.message });
 */
export class SessionBusyError extends LocalSandboxError {
  readonly sessionId: string;

  constructor(sessionId: string) {
    super('FUSEBOX_LOCAL_SANDBOX_SESSION_BUSY', `session ${sessionId} is already running a cell`);
    this.sessionId = sessionId;
  }
}
