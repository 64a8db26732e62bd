/**
 * Base class of every error @fusebox/local-sandbox throws. `code` is stable across versions so callers can
 * branch on it; {@link isLocalSandboxError} works across duplicate copies of this package.
 *
 * @example
 * try {
 *   await executor.runCode(request);
 * } catch (error) {
 *   if (isLocalSandboxError(error) && error.code === 'FUSEBOX_SANDBOX_QUEUE_FULL') retryLater();
 * }
 */
export class LocalSandboxError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: ErrorOptions) {
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
  return typeof code === 'string' && code.startsWith('FUSEBOX_SANDBOX_');
}
