import { ToolsError } from './tools-error';

/**
 * The model server did not produce a completion: an HTTP error after the retries, a timeout, or a body that is
 * not a chat completion. `status` is the last HTTP status, or null when no response arrived.
 *
 * @example
 * if (error instanceof GenerateError && error.status === 400) console.error('the model server refused the request');
 */
export class GenerateError extends ToolsError {
  readonly status: number | null;
  readonly attempts: number;

  constructor(message: string, status: number | null, attempts: number, options?: ErrorOptions) {
    super('FUSEBOX_TOOLS_GENERATE', message, options);
    this.status = status;
    this.attempts = attempts;
  }
}
