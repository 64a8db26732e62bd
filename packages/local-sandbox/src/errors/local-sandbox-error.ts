/** The stable `code` of every error this package throws. */
export const LOCAL_SANDBOX_ERROR_CODES = [
  'FUSEBOX_LOCAL_SANDBOX_CLOSED',
  'FUSEBOX_LOCAL_SANDBOX_ISOLATION_UNAVAILABLE',
  'FUSEBOX_LOCAL_SANDBOX_QUEUE_FULL',
  'FUSEBOX_LOCAL_SANDBOX_FAILURE',
  'FUSEBOX_LOCAL_SANDBOX_SESSION_BUSY',
  'FUSEBOX_LOCAL_SANDBOX_SESSION_DEAD',
  'FUSEBOX_LOCAL_SANDBOX_SESSION_LIMIT',
  'FUSEBOX_LOCAL_SANDBOX_SESSION_NOT_FOUND',
  'FUSEBOX_LOCAL_SANDBOX_UNSAFE_PATH',
] as const;

export type LocalSandboxErrorCode = (typeof LOCAL_SANDBOX_ERROR_CODES)[number];

/**
 * Base class of every error @fusebox/local-sandbox throws. `code` is stable across versions so callers can
 * branch on it; {@link isLocalSandboxError} works across duplicate copies of this package.
 *
 * @example
 * try {
 *   await executor.runCode(request);
 * } catch (error) {
 *   if (isLocalSandboxError(error) && error.code === 'FUSEBOX_LOCAL_SANDBOX_QUEUE_FULL') retryLater();
 * }
 */
export class LocalSandboxError extends Error {
  readonly code: LocalSandboxErrorCode;

  constructor(code: LocalSandboxErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * True for any error thrown by this package, even from another copy of it.
 *
 * @example
 * if (isLocalSandboxError(error)) console.error(error.code);
 */
export function isLocalSandboxError(error: unknown): error is LocalSandboxError {
  const code: unknown = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return (LOCAL_SANDBOX_ERROR_CODES as readonly unknown[]).includes(code);
}
