/** The stable `code` of every error this package throws. */
export const LIMITER_ERROR_CODES = [
  'FUSEBOX_LIMITER_CLOSED',
  'FUSEBOX_LIMITER_KEY_COLLISION',
  'FUSEBOX_LIMITER_PERMIT_LOST',
  'FUSEBOX_LIMITER_SHARED_SESSION',
  'FUSEBOX_LIMITER_TIMEOUT',
  'FUSEBOX_LIMITER_UNAVAILABLE',
] as const;

export type LimiterErrorCode = (typeof LIMITER_ERROR_CODES)[number];

/**
 * Base class of every error @fusebox/rate-limiter throws. `code` is stable across versions, so callers can
 * branch on it; `isLimiterError` works across duplicate copies of this package, where `instanceof` would not.
 *
 * @example
 * try {
 *   await limiter.acquire({ timeoutMs: 1_000 });
 * } catch (error) {
 *   if (isLimiterError(error) && error.code === 'FUSEBOX_LIMITER_TIMEOUT') reply.code(429);
 * }
 */
export class LimiterError extends Error {
  readonly code: LimiterErrorCode;

  constructor(code: LimiterErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * True for any error this package throws, from whichever copy of it.
 *
 * @example
 * if (isLimiterError(error)) console.warn(error.code);
 */
export function isLimiterError(error: unknown): error is LimiterError {
  const code: unknown = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return (LIMITER_ERROR_CODES as readonly unknown[]).includes(code);
}
