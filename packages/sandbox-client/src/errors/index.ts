// The errors of @fusebox/sandbox-client, one class per file; the root entry re-exports each by name.
export {
  SANDBOX_CLIENT_ERROR_CODES,
  SandboxClientError,
  isSandboxClientError,
  type SandboxClientErrorCode,
} from './sandbox-client-error';
export { SandboxHttpError } from './http-error';
export { SandboxTimeoutError } from './timeout-error';
export { SandboxUnavailableError } from './unavailable-error';
export { SandboxInvalidResponseError } from './invalid-response-error';
export { SandboxAbortedError } from './aborted-error';
