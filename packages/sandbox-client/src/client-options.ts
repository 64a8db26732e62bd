import { inspect } from 'node:util';
import { Agent, type Dispatcher } from 'undici';
import { defaultEndpoints } from './default-endpoint';
import { parseEndpoint, type Endpoint } from './endpoint';
import { resolveRetryPolicy, type RetryOptions, type RetryPolicy } from './retry-policy';

/**
 * @example
 * const options: SandboxClientOptions = {
 *   endpoint: 'http://sandbox:8080',
 *   timeoutMs: 60_000,
 *   headers: { authorization: `Bearer ${token}` },
 * };
 */
export interface SandboxClientOptions {
  /** Base URL of `/run_code`, `/run_jupyter` and `/v1/ping`. Default: `SANDBOX_FUSION_ENDPOINT`, then http://localhost:8080. */
  endpoint?: string;
  /** Base URL of the dataset routes. Default: `SANDBOX_FUSION_DATASET_ENDPOINT`, then `endpoint`. */
  datasetEndpoint?: string;
  /** The undici dispatcher to send through. Default: a keep-alive Agent that the client owns and closes. */
  dispatcher?: Dispatcher;
  retry?: RetryOptions;
  /** Default deadline of every call, retries and backoff included; Infinity for none. Default 300 000 (5 min). */
  timeoutMs?: number;
  /** Sent with every request, e.g. an `authorization` header. */
  headers?: Record<string, string>;
}

/**
 * @example
 * await client.runCode(request, { signal: AbortSignal.timeout(5_000), timeoutMs: 60_000 });
 */
export interface CallOptions {
  /** Aborting it stops the call, also during a backoff wait; the call rejects with `signal.reason`. */
  signal?: AbortSignal;
  /** This call's deadline, retries and backoff included; overrides the client's `timeoutMs`. */
  timeoutMs?: number;
  /** Sent with this call besides the client's `headers` (which win a clash), e.g. `x-fusebox-request-id`. */
  headers?: Record<string, string>;
}

export interface ResolvedOptions {
  sandbox: Endpoint;
  dataset: Endpoint;
  dispatcher: Dispatcher;
  /** Whether the client created the dispatcher, and so must close it. */
  ownsDispatcher: boolean;
  retry: RetryPolicy;
  timeoutMs: number;
  headers: Record<string, string>;
}

const DEFAULT_TIMEOUT_MS = 300_000;

export function resolveClientOptions(options: SandboxClientOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`options must be an object, got ${inspect(options)}`);
  }
  const defaults = defaultEndpoints();
  const endpoint = options.endpoint ?? defaults.endpoint;
  const sandbox = parseEndpoint('endpoint', endpoint);
  const dataset = parseEndpoint(
    'datasetEndpoint',
    options.datasetEndpoint ?? (options.endpoint === undefined ? defaults.datasetEndpoint : endpoint),
  );
  const { dispatcher } = options;
  if (dispatcher !== undefined && typeof (dispatcher as Partial<Dispatcher>).request !== 'function') {
    throw new TypeError('dispatcher must be an undici Dispatcher (an Agent, Pool or Client)');
  }
  return {
    sandbox,
    dataset,
    dispatcher: dispatcher ?? new Agent(),
    ownsDispatcher: dispatcher === undefined,
    retry: resolveRetryPolicy(options.retry),
    timeoutMs: checkTimeout('timeoutMs', options.timeoutMs) ?? DEFAULT_TIMEOUT_MS,
    headers: { ...checkHeaders(options.headers), 'content-type': 'application/json' },
  };
}

/** Validates one call's options; bad ones throw before anything is sent. */
export function checkCallOptions(options: CallOptions): CallOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`call options must be an object such as { signal }, got ${inspect(options)}`);
  }
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    throw new TypeError('signal must be an AbortSignal');
  }
  checkTimeout('timeoutMs', options.timeoutMs);
  return options.headers === undefined ? options : { ...options, headers: checkHeaders(options.headers) };
}

function checkTimeout(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !(value > 0)) {
    throw new TypeError(`${name} must be a number of milliseconds > 0 (or Infinity), got ${inspect(value)}`);
  }
  return value;
}

/** Headers with their names in lower case: names are case-insensitive, and a clash must be seen to be settled. */
function checkHeaders(headers: unknown): Record<string, string> {
  if (headers === undefined) return {};
  if (
    typeof headers !== 'object' ||
    headers === null ||
    Object.values(headers).some((value) => typeof value !== 'string')
  ) {
    throw new TypeError('headers must be an object of header names to string values');
  }
  return Object.fromEntries(
    Object.entries(headers as Record<string, string>).map(([name, value]) => [name.toLowerCase(), value]),
  );
}
