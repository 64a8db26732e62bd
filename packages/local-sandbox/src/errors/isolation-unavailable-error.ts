import { LocalSandboxError } from './local-sandbox-error';

/**
 * bubblewrap cannot create the sandbox's namespaces on this machine, so code cannot run isolated. The message
 * says what failed and how to fix it (or how to turn isolation off explicitly).
 *
 * @example
 * if (error instanceof IsolationUnavailableError) process.exitCode = 1;
 */
export class IsolationUnavailableError extends LocalSandboxError {
  constructor(message: string, options?: ErrorOptions) {
    super('FUSEBOX_LOCAL_SANDBOX_ISOLATION_UNAVAILABLE', message, options);
  }
}
