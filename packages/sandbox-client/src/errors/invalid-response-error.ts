import { SandboxClientError } from './sandbox-client-error';

/**
 * The server answered success with a body that is not JSON or does not match the protocol (a missing field, a
 * wrong type). `body` is the raw text and `cause` the parse or validation error. Not retried: a server that
 * speaks another protocol will not change its mind.
 *
 * @example
 * if (isSandboxClientError(error) && error.code === 'FUSEBOX_SANDBOX_INVALID_RESPONSE') console.error(error.body);
 */
export class SandboxInvalidResponseError extends SandboxClientError {
  declare readonly code: 'FUSEBOX_SANDBOX_INVALID_RESPONSE';
  readonly status: number;
  readonly body: string;
  readonly url: string;

  constructor(url: string, status: number, body: string, reason: string, cause: unknown) {
    super(
      'FUSEBOX_SANDBOX_INVALID_RESPONSE',
      `${url} answered HTTP ${status} with an invalid body: ${reason}`,
      {
        cause,
      },
    );
    this.status = status;
    this.body = body;
    this.url = url;
  }
}
