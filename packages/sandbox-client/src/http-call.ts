import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import { SandboxHttpError } from './errors/http-error';
import { SandboxInvalidResponseError } from './errors/invalid-response-error';
import { SandboxUnavailableError } from './errors/unavailable-error';
import { parseRetryAfter } from './retry-after';
import { RETRYABLE_STATUSES, backoffDelay, isRetryableNetworkError, type RetryPolicy } from './retry-policy';
import { sleep } from './sleep';

/** What every call of one client shares. */
export interface Transport {
  dispatcher: Dispatcher;
  headers: Record<string, string>;
  retry: RetryPolicy;
}

/** One route of the protocol, resolved against its endpoint. */
export interface Route<T> {
  method: 'GET' | 'POST';
  origin: string;
  path: string;
  /** The full URL, for error messages. */
  url: string;
  schema: z.ZodType<T>;
  /** A valid answer that still deserves another try (a SandboxError, when the client is set to retry it). */
  shouldRetry?: (value: T) => boolean;
}

type Attempt<T> = { value: T; retry: boolean } | { error: unknown; retryAfterMs?: number };

/**
 * Sends one request, retrying transient failures with backoff until the policy's attempts run out. Rejects
 * with `signal.reason` as soon as the signal aborts, also in the middle of a backoff wait.
 */
export async function callWithRetry<T>(
  transport: Transport,
  route: Route<T>,
  body: unknown,
  signal: AbortSignal,
): Promise<T> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const { attempts } = transport.retry;
  for (let attempt = 1; ; attempt++) {
    const outcome = await attemptOnce(transport, route, payload, signal, attempt);
    if ('value' in outcome && (!outcome.retry || attempt === attempts)) return outcome.value;
    if ('error' in outcome && attempt === attempts)
      throw new SandboxUnavailableError(route.url, attempt, outcome.error);
    const retryAfterMs = 'error' in outcome ? outcome.retryAfterMs : undefined;
    await sleep(backoffDelay(transport.retry, attempt, retryAfterMs), signal);
  }
}

async function attemptOnce<T>(
  transport: Transport,
  route: Route<T>,
  payload: string | undefined,
  signal: AbortSignal,
  attempt: number,
): Promise<Attempt<T>> {
  let status: number;
  let headers: Dispatcher.ResponseData['headers'];
  let text: string;
  try {
    const response = await transport.dispatcher.request({
      origin: route.origin,
      path: route.path,
      method: route.method,
      headers: transport.headers,
      body: payload,
      signal,
    });
    ({ statusCode: status, headers } = response);
    text = await response.body.text();
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (isRetryableNetworkError(error)) return { error };
    throw new SandboxUnavailableError(route.url, attempt, error);
  }
  if (status >= 200 && status < 300) {
    const value = decode(route, status, text);
    return { value, retry: route.shouldRetry?.(value) ?? false };
  }
  const error = new SandboxHttpError(route.url, status, text);
  if (RETRYABLE_STATUSES.has(status)) return { error, retryAfterMs: parseRetryAfter(headers['retry-after']) };
  throw error;
}

function decode<T>(route: Route<T>, status: number, text: string): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SandboxInvalidResponseError(route.url, status, text, 'not JSON', error);
  }
  const parsed = route.schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(
    (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
  );
  throw new SandboxInvalidResponseError(route.url, status, text, problems.join('; '), parsed.error);
}
