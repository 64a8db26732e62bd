import { LocalSandboxError } from './local-sandbox-error';

/**
 * The sandbox itself failed (bubblewrap could not start, the driver died unexpectedly): not the user's code.
 * `/run_code` reports it as a `SandboxError` with this message.
 *
 * @example
 * if (error instanceof SandboxFailureError) log.error(error.cause);
 */
export class SandboxFailureError extends LocalSandboxError {
  constructor(message: string, options?: ErrorOptions) {
    super('FUSEBOX_LOCAL_SANDBOX_FAILURE', message, options);
  }
}
