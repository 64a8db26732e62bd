import { LocalSandboxError } from './local-sandbox-error';

/**
 * The executor was closed; it accepts no more work and everything still queued was rejected with this.
 *
 * @example
 * if (error instanceof ExecutorClosedError) return reply.code(503).send();
 */
export class ExecutorClosedError extends LocalSandboxError {
  constructor() {
    super('FUSEBOX_LOCAL_SANDBOX_CLOSED', 'the executor is closed');
  }
}
