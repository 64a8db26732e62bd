import type { z } from 'zod';
import { CallAbort } from './call-abort';
import {
  checkCallOptions,
  resolveClientOptions,
  type CallOptions,
  type SandboxClientOptions,
} from './client-options';
import type { Endpoint } from './endpoint';
import { SandboxAbortedError } from './errors/aborted-error';
import type { SandboxClientError } from './errors/sandbox-client-error';
import { callWithRetry, type Route, type Transport } from './http-call';
import { InFlightCalls } from './in-flight-calls';
import { mapConcurrent, type RunConcurrentOptions } from './run-concurrent';
import {
  getMetricsFunctionResponseSchema,
  getMetricsResponseSchema,
  getPromptsResponseSchema,
  listDatasetsResponseSchema,
  listIdsResponseSchema,
  type GetMetricsFunctionRequestInput,
  type GetMetricsFunctionResponse,
  type GetMetricsRequestInput,
  type GetPromptByIdRequestInput,
  type GetPromptsRequestInput,
  type SubmitRequestInput,
} from './protocol/datasets';
import { evalResultSchema, type EvalResult } from './protocol/eval-result';
import { pingResponseSchema } from './protocol/ping';
import { promptSchema, type Prompt } from './protocol/prompt';
import { runCodeResponseSchema, type RunCodeRequestInput, type RunCodeResponse } from './protocol/run-code';
import {
  runJupyterResponseSchema,
  type RunJupyterRequestInput,
  type RunJupyterResponse,
} from './protocol/run-jupyter';
import type { ProblemId } from './protocol/test-config';

export type { CallOptions, SandboxClientOptions } from './client-options';
export type { RetryOptions } from './retry-policy';
export type { ConcurrentProgress, RunConcurrentOptions } from './run-concurrent';

/**
 * A client of one SandboxFusion-compatible server (a real SandboxFusion, or Fusebox's API). Every method takes
 * `{ signal, timeoutMs }`, validates the answer against the protocol's schemas, and retries transient failures
 * (see {@link RetryOptions}).
 *
 * @example
 * const client = createSandboxClient({ endpoint: 'http://127.0.0.1:8080' });
 * const result = await client.runCode({ code: 'print(6 * 7)', language: 'python' });
 * console.log(result.status, result.run_result?.stdout); // Success 42
 * await client.close();
 */
export interface SandboxClient {
  /**
   * Runs code once (`POST /run_code`). A `Failed` run (non-zero exit, timeout, compile error) is an answer, not
   * an error: it resolves, and is never retried.
   *
   * @example
   * const { run_result } = await client.runCode({ code: 'echo hi', language: 'bash', run_timeout: 5 });
   */
  runCode(request: RunCodeRequestInput, options?: CallOptions): Promise<RunCodeResponse>;
  /**
   * Runs cells in order in one Python kernel (`POST /run_jupyter`).
   *
   * @example
   * const { cells } = await client.runJupyter({ cells: ['a = 21', 'a * 2'] });
   * cells[1]?.display[0]?.['text/plain']; // '42'
   */
  runJupyter(request: RunJupyterRequestInput, options?: CallOptions): Promise<RunJupyterResponse>;
  /**
   * Runs many `/run_code` requests with at most `concurrency` in flight and returns the answers in input order.
   * A request that fails has its error (one of this package's errors) in its place instead of failing the batch.
   *
   * @example
   * const results = await client.runConcurrent(requests, {
   *   concurrency: 32,
   *   onProgress: ({ completed, total, failed }) => console.log(`${completed}/${total}, ${failed} failed`),
   * });
   */
  runConcurrent(
    requests: readonly RunCodeRequestInput[],
    options?: RunConcurrentOptions<RunCodeResponse> & Pick<CallOptions, 'timeoutMs'>,
  ): Promise<(RunCodeResponse | SandboxClientError)[]>;
  /**
   * Judges a completion against a dataset's tests (`POST /submit`).
   *
   * @example
   * const { accepted } = await client.submit({ dataset: 'mbpp', id: 11, completion, config: {} });
   */
  submit(request: SubmitRequestInput, options?: CallOptions): Promise<EvalResult>;
  /**
   * A page of a dataset's prompts (`POST /get_prompts`).
   *
   * @example
   * const prompts = await client.getPrompts({ dataset: 'mbpp', config: {}, offset: 0, limit: 100 });
   */
  getPrompts(request: GetPromptsRequestInput, options?: CallOptions): Promise<Prompt[]>;
  /**
   * One prompt (`POST /get_prompt_by_id`).
   *
   * @example
   * const prompt = await client.getPromptById({ dataset: 'mbpp', config: {}, id: 11 });
   */
  getPromptById(request: GetPromptByIdRequestInput, options?: CallOptions): Promise<Prompt>;
  /**
   * The registered datasets (`GET /list_datasets`).
   *
   * @example
   * const datasets = await client.listDatasets();
   */
  listDatasets(options?: CallOptions): Promise<string[]>;
  /**
   * A page of a dataset's problem ids (`POST /list_ids`).
   *
   * @example
   * const ids = await client.listIds({ dataset: 'mbpp', config: {} });
   */
  listIds(request: GetPromptsRequestInput, options?: CallOptions): Promise<ProblemId[]>;
  /**
   * The dataset's aggregate metrics over results (`POST /get_metrics`); `{}` when it has none.
   *
   * @example
   * const metrics = await client.getMetrics({ dataset: 'mbpp', config: {}, results });
   */
  getMetrics(request: GetMetricsRequestInput, options?: CallOptions): Promise<Record<string, unknown>>;
  /**
   * The Python source of the dataset's metric function, or null (`POST /get_metrics_function`).
   *
   * @example
   * const { function: source } = await client.getMetricsFunction({ dataset: 'mbpp', config: {} });
   */
  getMetricsFunction(
    request: GetMetricsFunctionRequestInput,
    options?: CallOptions,
  ): Promise<GetMetricsFunctionResponse>;
  /**
   * Resolves once the server answers `GET /v1/ping` with "pong".
   *
   * @example
   * await client.ping({ timeoutMs: 2_000 });
   */
  ping(options?: CallOptions): Promise<void>;
  /**
   * Stops every call in flight or waiting to retry with a SandboxAbortedError, refuses new calls the same way,
   * and closes the dispatcher if the client created it.
   *
   * @example
   * process.once('SIGTERM', () => void client.close());
   */
  close(): Promise<void>;
}

/**
 * Creates a {@link SandboxClient}. Options are checked here: a bad one throws a TypeError saying what was
 * expected.
 *
 * @example
 * const client = createSandboxClient({ retry: { attempts: 8 }, timeoutMs: 120_000 });
 * const summary = summarize(await client.runCode({ code: 'print(1)', language: 'python' }));
 */
export function createSandboxClient(options: SandboxClientOptions = {}): SandboxClient {
  const resolved = resolveClientOptions(options);
  const transport: Transport = {
    dispatcher: resolved.dispatcher,
    headers: resolved.headers,
    retry: resolved.retry,
  };
  const inFlight = new InFlightCalls();
  let closing: Promise<void> | undefined;

  const retrySandboxError = (value: { status: string }) =>
    resolved.retry.sandboxError && value.status === 'SandboxError';
  const route = <T>(
    endpoint: Endpoint,
    method: Route<T>['method'],
    path: string,
    schema: z.ZodType<T>,
    shouldRetry?: (value: T) => boolean,
  ): Route<T> => {
    const fullPath = `${endpoint.basePath}${path}`;
    return {
      method,
      origin: endpoint.origin,
      path: fullPath,
      url: `${endpoint.origin}${fullPath}`,
      schema,
      shouldRetry,
    };
  };
  const { sandbox, dataset } = resolved;
  const routes = {
    runCode: route(sandbox, 'POST', '/run_code', runCodeResponseSchema, retrySandboxError),
    runJupyter: route(sandbox, 'POST', '/run_jupyter', runJupyterResponseSchema, retrySandboxError),
    ping: route(sandbox, 'GET', '/v1/ping', pingResponseSchema),
    submit: route(dataset, 'POST', '/submit', evalResultSchema),
    getPrompts: route(dataset, 'POST', '/get_prompts', getPromptsResponseSchema),
    getPromptById: route(dataset, 'POST', '/get_prompt_by_id', promptSchema),
    listDatasets: route(dataset, 'GET', '/list_datasets', listDatasetsResponseSchema),
    listIds: route(dataset, 'POST', '/list_ids', listIdsResponseSchema),
    getMetrics: route(dataset, 'POST', '/get_metrics', getMetricsResponseSchema),
    getMetricsFunction: route(dataset, 'POST', '/get_metrics_function', getMetricsFunctionResponseSchema),
  };

  async function call<T>(target: Route<T>, body: unknown, options: CallOptions = {}): Promise<T> {
    const { signal: callerSignal, timeoutMs = resolved.timeoutMs, headers } = checkCallOptions(options);
    callerSignal?.throwIfAborted();
    if (closing) throw new SandboxAbortedError();
    const abort = new CallAbort(callerSignal, timeoutMs, target.url);
    inFlight.add(abort);
    try {
      return await callWithRetry(transport, target, body, abort, headers);
    } finally {
      abort.dispose();
      inFlight.delete(abort);
    }
  }

  const client: SandboxClient = {
    runCode: (request, options) => call(routes.runCode, request, options),
    runJupyter: (request, options) => call(routes.runJupyter, request, options),
    runConcurrent: (requests, options = {}) => {
      const { signal, timeoutMs } = options;
      return mapConcurrent(requests, (request) => client.runCode(request, { signal, timeoutMs }), options);
    },
    submit: (request, options) => call(routes.submit, request, options),
    getPrompts: (request, options) => call(routes.getPrompts, request, options),
    getPromptById: (request, options) => call(routes.getPromptById, request, options),
    listDatasets: (options) => call(routes.listDatasets, undefined, options),
    listIds: (request, options) => call(routes.listIds, request, options),
    getMetrics: (request, options) => call(routes.getMetrics, request, options),
    getMetricsFunction: (request, options) => call(routes.getMetricsFunction, request, options),
    ping: async (options) => {
      await call(routes.ping, undefined, options);
    },
    close: () => {
      if (closing) return closing;
      inFlight.abortAll(() => new SandboxAbortedError());
      closing = resolved.ownsDispatcher ? resolved.dispatcher.close() : Promise.resolve();
      return closing;
    },
  };
  return client;
}
