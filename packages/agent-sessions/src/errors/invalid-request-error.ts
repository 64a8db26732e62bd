import { SessionApiError } from './session-api-error';

/** A body that is not JSON, misses a field or has one of the wrong type: 400, naming the field. */
export class InvalidRequestError extends SessionApiError {
  /** The dotted path of the offending field; '' when the body as a whole is wrong. */
  readonly field: string;

  constructor(field: string, message: string) {
    super('FUSEBOX_SESSION_INVALID_REQUEST', 400, field ? `${field}: ${message}` : message);
    this.field = field;
  }
}
