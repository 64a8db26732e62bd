/**
 * The stable `code` of every error this package throws, one per error class.
 *
 * @example
 * const retryable: SandboxClientErrorCode[] = ['FUSEBOX_SANDBOX_UNAVAILABLE', 'FUSEBOX_SANDBOX_TIMEOUT'];
 */
export const SANDBOX_CLIENT_ERROR_CODES = [
  'FUSEBOX_SANDBOX_HTTP',
  'FUSEBOX_SANDBOX_TIMEOUT',
  'FUSEBOX_SANDBOX_UNAVAILABLE',
  'FUSEBOX_SANDBOX_INVALID_RESPONSE',
  'FUSEBOX_SANDBOX_ABORTED',
] as const;

/** @example if (error.code === ('FUSEBOX_SANDBOX_TIMEOUT' satisfies SandboxClientErrorCode)) retryLater(); */
export type SandboxClientErrorCode = (typeof SANDBOX_CLIENT_ERROR_CODES)[number];

/**
 * Base class of every error @fusebox/sandbox-client throws. Branch on `code`, which is stable across versions;
 * `cause` holds the underlying error when there is one.
 *
 * @example
 * try {
 *   await client.runCode({ code: 'print(1)', language: 'python' });
 * } catch (error) {
 *   if (isSandboxClientError(error)) console.error(error.code, error.message);
 * }
 */
export class SandboxClientError extends Error {
  readonly code: SandboxClientErrorCode;

  constructor(code: SandboxClientErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * True for any error thrown by this package, also when it comes from another copy of the package (so it does
 * not rely on `instanceof`).
 *
 * @example
 * const results = await client.runConcurrent(requests);
 * const failed = results.filter(isSandboxClientError);
 */
export function isSandboxClientError(error: unknown): error is SandboxClientError {
  const code: unknown = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return (SANDBOX_CLIENT_ERROR_CODES as readonly unknown[]).includes(code);
}
