import { inspect } from 'node:util';

/**
 * When and how long to retry. Retried: HTTP 429, 502, 503 and 504; refused and reset connections; socket
 * timeouts (undici's connect, headers and body timeouts). Never retried: a `Failed` run (the model's code is
 * wrong, not the network), other HTTP statuses, invalid bodies, aborts and the call's own `timeoutMs`.
 *
 * @example
 * createSandboxClient({ retry: { attempts: 8, maxDelayMs: 30_000, sandboxError: true } });
 */
export interface RetryOptions {
  /** Tries in all, the first included; 1 disables retrying. Default 5, as SandboxFusion's SDK. */
  attempts?: number;
  /** The backoff before retry n is a random wait in [0, min(maxDelayMs, baseDelayMs * 2^(n-1))]. Default 200. */
  baseDelayMs?: number;
  /** The ceiling of the exponential backoff. Default 10 000. A longer `Retry-After` is still honoured. */
  maxDelayMs?: number;
  /**
   * Retry a `SandboxError` answer of `/run_code` and `/run_jupyter` (HTTP 200, but the sandbox itself failed).
   * Default false: the answer is returned as is. SandboxFusion's Python SDK always retries it (and raises once
   * its attempts run out); with true, this client retries it and returns the last answer when attempts run out.
   */
  sandboxError?: boolean;
}

export type RetryPolicy = Required<RetryOptions>;

const DEFAULT_RETRY: RetryPolicy = { attempts: 5, baseDelayMs: 200, maxDelayMs: 10_000, sandboxError: false };

export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

const RETRYABLE_ERROR_CODES: ReadonlySet<unknown> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

export function resolveRetryPolicy(options: RetryOptions | undefined): RetryPolicy {
  if (options === undefined) return DEFAULT_RETRY;
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`retry must be an object such as { attempts: 5 }, got ${inspect(options)}`);
  }
  const policy = { ...DEFAULT_RETRY, ...options };
  if (!Number.isInteger(policy.attempts) || policy.attempts < 1) {
    throw new TypeError(`retry.attempts must be an integer ≥ 1, got ${inspect(policy.attempts)}`);
  }
  for (const key of ['baseDelayMs', 'maxDelayMs'] as const) {
    if (typeof policy[key] !== 'number' || !Number.isFinite(policy[key]) || policy[key] < 0) {
      throw new TypeError(
        `retry.${key} must be a finite number of milliseconds ≥ 0, got ${inspect(policy[key])}`,
      );
    }
  }
  if (typeof policy.sandboxError !== 'boolean') {
    throw new TypeError(`retry.sandboxError must be a boolean, got ${inspect(policy.sandboxError)}`);
  }
  return policy;
}

/**
 * The wait before the next try after failed attempt `attempt` (1-based): full jitter, so that many clients
 * refused together do not come back together. A `Retry-After` is a floor that the jitter is added to.
 */
export function backoffDelay(policy: RetryPolicy, attempt: number, retryAfterMs = 0): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return retryAfterMs + Math.random() * ceiling;
}

/** Whether a network error is transient. Node reports a refused dual-stack connect as an AggregateError. */
export function isRetryableNetworkError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (RETRYABLE_ERROR_CODES.has((error as Error & { code?: unknown }).code)) return true;
  return error instanceof AggregateError && error.errors.some(isRetryableNetworkError);
}
