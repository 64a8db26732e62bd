import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import type { CallAbort } from './call-abort';
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

/**
 * Sends one request, retrying transient failures with backoff until the policy's attempts run out. Rejects
 * with the abort's reason as soon as it aborts, also in the middle of a backoff wait. One flat loop: every
 * extra async layer is paid on every call, and the client's whole overhead budget is about 10 µs.
 */
export async function callWithRetry<T>(
  transport: Transport,
  route: Route<T>,
  body: unknown,
  abort: CallAbort,
  callHeaders?: Record<string, string>,
): Promise<T> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers = callHeaders ? { ...callHeaders, ...transport.headers } : transport.headers;
  const { attempts } = transport.retry;
  for (let attempt = 1; ; attempt++) {
    /** 0 until a whole answer has arrived. */
    let status = 0;
    let text = '';
    let answerHeaders: Dispatcher.ResponseData['headers'] = {};
    let failure: unknown;
    try {
      const response = await transport.dispatcher.request({
        origin: route.origin,
        path: route.path,
        method: route.method,
        headers,
        body: payload,
        signal: abort,
      });
      text = await response.body.text();
      ({ statusCode: status, headers: answerHeaders } = response);
    } catch (error) {
      if (abort.aborted) throw abort.reason;
      if (!isRetryableNetworkError(error)) throw new SandboxUnavailableError(route.url, attempt, error);
      failure = error;
    }
    if (status >= 200 && status < 300) {
      const value = decode(route, status, text);
      if (attempt === attempts || !route.shouldRetry?.(value)) return value;
    } else if (status !== 0) {
      failure = new SandboxHttpError(route.url, status, text);
      if (!RETRYABLE_STATUSES.has(status)) throw failure;
    }
    if (failure !== undefined && attempt === attempts)
      throw new SandboxUnavailableError(route.url, attempt, failure);
    const retryAfterMs = status === 0 ? undefined : parseRetryAfter(answerHeaders['retry-after']);
    await sleep(backoffDelay(transport.retry, attempt, retryAfterMs), abort);
    if (abort.aborted) throw abort.reason;
  }
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
