export {
  LOCAL_SANDBOX_ERROR_CODES,
  LocalSandboxError,
  isLocalSandboxError,
  type LocalSandboxErrorCode,
} from './local-sandbox-error';
export { ExecutorClosedError } from './executor-closed-error';
export { IsolationUnavailableError } from './isolation-unavailable-error';
export { QueueFullError } from './queue-full-error';
export { SandboxFailureError } from './sandbox-failure-error';
export { SessionBusyError } from './session-busy-error';
export { SessionDeadError } from './session-dead-error';
export { SessionLimitError } from './session-limit-error';
export { SessionNotFoundError } from './session-not-found-error';
export { UnsafePathError } from './unsafe-path-error';
