export {
  SESSION_API_ERROR_CODES,
  SessionApiError,
  isSessionApiError,
  type SessionApiErrorCode,
} from './session-api-error';
export { ConcurrentActionError } from './concurrent-action-error';
export { SessionActionLimitError } from './session-action-limit-error';
export { SessionCodeLimitError } from './session-code-limit-error';
export { InvalidRequestError } from './invalid-request-error';
export { SessionClosedError } from './session-closed-error';
export { SessionNotFoundError } from './session-not-found-error';
export { SessionsFullError } from './sessions-full-error';
export { TaskNotFoundError } from './task-not-found-error';
