import { SandboxClientError } from './sandbox-client-error';

const BODY_IN_MESSAGE = 300;

/**
 * The server answered with an HTTP status that is neither success nor worth retrying, e.g. 422 for an invalid
 * request (its `body` then holds FastAPI's `{"detail": [...]}`). After retries, a retryable status such as 503
 * surfaces as the `cause` of a {@link SandboxUnavailableError}.
 *
 * @example
 * if (isSandboxClientError(error) && error.code === 'FUSEBOX_SANDBOX_HTTP') console.error(error.status, error.body);
 */
export class SandboxHttpError extends SandboxClientError {
  declare readonly code: 'FUSEBOX_SANDBOX_HTTP';
  readonly status: number;
  /** The response body as text. */
  readonly body: string;
  readonly url: string;

  constructor(url: string, status: number, body: string) {
    const excerpt = body.length > BODY_IN_MESSAGE ? `${body.slice(0, BODY_IN_MESSAGE)}…` : body;
    super('FUSEBOX_SANDBOX_HTTP', `${url} answered HTTP ${status}: ${excerpt}`);
    this.status = status;
    this.body = body;
    this.url = url;
  }
}
