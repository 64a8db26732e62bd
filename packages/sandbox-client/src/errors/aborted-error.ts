import { SandboxClientError } from './sandbox-client-error';

/**
 * The client was closed: calls in flight, or waiting to retry, stop with this error, and so does any call made
 * afterwards. (A call aborted through its own `signal` rejects with that signal's `reason` instead.)
 *
 * @example
 * process.once('SIGTERM', () => void client.close());
 */
export class SandboxAbortedError extends SandboxClientError {
  declare readonly code: 'FUSEBOX_SANDBOX_ABORTED';

  constructor() {
    super('FUSEBOX_SANDBOX_ABORTED', 'the sandbox client was closed');
  }
}
