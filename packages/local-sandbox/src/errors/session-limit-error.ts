import { LocalSandboxError } from './local-sandbox-error';

/**
 * The executor already holds its maximum number of open sessions; close one (or wait for one to expire).
 *
 * @example
 * if (error instanceof SessionLimitError) return reply.code(429).send({ detail: error.message });
 */
export class SessionLimitError extends LocalSandboxError {
  constructor(maxSessions: number) {
    super(
      'FUSEBOX_LOCAL_SANDBOX_SESSION_LIMIT',
      `${maxSessions} sessions are already open; close one or wait for an idle one to expire`,
    );
  }
}
