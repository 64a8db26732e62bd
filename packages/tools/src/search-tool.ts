import { setTimeout as sleep } from 'node:timers/promises';
import { type Limiter, createLocalLimiter } from '@fusebox/rate-limiter';
import { z } from 'zod';
import { BaseTool, type ToolExecution, type ToolKwargs } from './base-tool';
import { openGlobalLimiter } from './global-limiter';
import { parseOptions } from './parse-options';
import { type SearchConfig, searchConfigSchema } from './search-config';
import { passagesText, searchResultText } from './search-text';
import type { ToolSchemaInput } from './tool-schema';

/**
 * The schema of verl's `search_tool_config.yaml`, used when a config gives none.
 *
 * @example
 * new SearchTool({ retrieval_service_url: url }, SEARCH_TOOL_SCHEMA);
 */
export const SEARCH_TOOL_SCHEMA: ToolSchemaInput = {
  type: 'function',
  function: {
    name: 'search',
    description: 'Searches the web for relevant information based on the given query.',
    parameters: {
      type: 'object',
      properties: {
        query_list: {
          type: 'array',
          description:
            'A list of fully-formed semantic queries. The tool will return search results for each query.',
        },
      },
      required: ['query_list'],
    },
  },
};

/**
 * What a search tool can be given besides its config.
 *
 * @example
 * new SearchTool(config, undefined, { headers: { authorization: `Bearer ${token}` } });
 */
export interface SearchToolOptions {
  /** The global limiter; defaults to one built from the config (Postgres with `database_url`, else in-process). */
  limiter?: Limiter;
  /** Sent with every request, e.g. the API token of a Fusebox that requires one. */
  headers?: Record<string, string>;
}

/** verl's answer to a call without a usable `query_list`. */
const NO_QUERY_LIST = "Error: 'query_list' is missing, empty, or not a list in parameters.";
/** Statuses worth another attempt: overloaded (Fusebox's 429 when no permit came) or a server error. */
const RETRIED = new Set([429, 500, 502, 503, 504]);
/** Characters of a refusal's body kept in the message the model reads. */
const DETAIL_CHARS = 500;

const responseSchema = z.object({
  result: z.array(
    z.array(
      z.object({
        document: z.object({ id: z.string(), contents: z.string() }),
        score: z.number().optional(),
      }),
    ),
  ),
});

/** How one search went: verl's metadata statuses (`success`, `no_results`, `api_error`, `processing_error`). */
interface SearchOutcome {
  text: string;
  status: string;
  totalResults: number;
  error: string | null;
}

/** Why an HTTP attempt failed, and whether another might succeed. */
class AttemptError extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/**
 * verl's `SearchTool` (`search(query_list)`): sends the queries to a Search-R1 retrieval service (Fusebox's
 * `POST /retrieve`, or Search-R1's own server) as one `{queries, topk, return_scores}` request, and answers the
 * model with verl's exact text, `{"result": "Doc 1 (Title: …)\n…"}`, each query's passages joined by `\n---\n`.
 * At most `num_workers` searches run at once from this object and `rate_limit` at once globally (on
 * `rate_limit_key`: Postgres with `database_url`, in-process otherwise); Fusebox's `/retrieve` applies its own
 * limit too. An overloaded or failing service (429, 5xx, no connection, a timeout) is retried `max_retries`
 * times; a refusal becomes the tool message with the service's reason. Call `close()` when done.
 *
 * @example
 * const tool = new SearchTool({ retrieval_service_url: 'http://127.0.0.1:8080/retrieve' });
 * const { instanceId } = await tool.create();
 * const { response, metrics } = await tool.execute(instanceId, { query_list: ['capital of france'] });
 * // response.text === '{"result": "Doc 1 (Title: \\"Paris\\")\\nParis is the capital of France."}'
 * await tool.release(instanceId);
 * await tool.close();
 */
export class SearchTool extends BaseTool<Record<string, never>> {
  static readonly defaultSchema = SEARCH_TOOL_SCHEMA;
  readonly settings: SearchConfig;
  readonly #headers: Record<string, string>;
  readonly #workers: Limiter;
  readonly #global: Promise<Limiter | null>;
  #ownsGlobal = false;

  constructor(
    config: Record<string, unknown>,
    schema: ToolSchemaInput = SEARCH_TOOL_SCHEMA,
    options: SearchToolOptions = {},
  ) {
    super(config, schema);
    this.settings = parseOptions(searchConfigSchema, config, 'config');
    this.#headers = options.headers ?? {};
    this.#workers = createLocalLimiter({ limit: this.settings.num_workers, key: `${this.name}.workers` });
    this.#global =
      options.limiter || !this.settings.enable_global_rate_limit
        ? Promise.resolve(options.limiter ?? null)
        : openGlobalLimiter(this.settings).then(({ limiter, owned }) => {
            this.#ownsGlobal = owned;
            return limiter;
          });
    // A rejected global limiter is reported by the first execute; until then it must not crash the process.
    this.#global.catch(() => undefined);
  }

  protected initialState(): Record<string, never> {
    return {};
  }

  /**
   * Searches `parameters.query_list`. A missing or empty list, an unreachable service or a refusal become the
   * tool message; only an abort rejects.
   */
  async execute(
    instanceId: string,
    parameters: Record<string, unknown>,
    kwargs: ToolKwargs = {},
  ): Promise<ToolExecution> {
    this.state(instanceId);
    const signal = kwargs.signal ?? new AbortController().signal;
    const queries = parameters.query_list;
    if (!Array.isArray(queries) || queries.length === 0) {
      return { response: { text: searchResultText(NO_QUERY_LIST) }, reward: 0, metrics: {} };
    }
    const started = performance.now();
    let queueWaitMs = 0;
    let outcome: SearchOutcome;
    try {
      const search = (permitSignal?: AbortSignal) => {
        queueWaitMs = performance.now() - started;
        return this.#search(queries, permitSignal ? AbortSignal.any([signal, permitSignal]) : signal);
      };
      const global = await this.#global;
      outcome = await this.#workers.withPermit(
        () => (global ? global.withPermit(search, { signal }) : search()),
        { signal },
      );
    } catch (error) {
      signal.throwIfAborted();
      const message = (error as Error).message;
      outcome = {
        text: searchResultText(`Search error: ${message}`),
        status: 'api_error',
        totalResults: 0,
        error: message,
      };
    }
    return {
      response: { text: outcome.text },
      reward: 0,
      metrics: {
        query_count: queries.length,
        status: outcome.status,
        total_results: outcome.totalResults,
        api_request_error: outcome.error,
        durationMs: performance.now() - started,
        queueWaitMs,
        outputBytes: Buffer.byteLength(outcome.text, 'utf8'),
      },
    };
  }

  /** Closes the Postgres limiter this tool created; shared and injected ones stay open. */
  override async close(): Promise<void> {
    await this.#workers.close();
    const global = await this.#global.catch(() => null);
    if (this.#ownsGlobal && global) await global.close();
  }

  async #search(queries: unknown[], signal: AbortSignal): Promise<SearchOutcome> {
    const body = await this.#post(queries, signal);
    const parsed = responseSchema.safeParse(body);
    if (!parsed.success) {
      const problem = `Error processing search results: ${parsed.error.issues[0]?.message ?? 'invalid'}`;
      return { text: searchResultText(problem), status: 'processing_error', totalResults: 0, error: null };
    }
    const results = parsed.data.result;
    if (results.length === 0) {
      return {
        text: searchResultText('No search results found.'),
        status: 'no_results',
        totalResults: 0,
        error: null,
      };
    }
    const passages = results.map((documents) => passagesText(documents.map(({ document }) => document)));
    return {
      text: searchResultText(passages.join('\n---\n')),
      status: 'success',
      totalResults: results.reduce((sum, documents) => sum + documents.length, 0),
      error: null,
    };
  }

  /** The service's JSON answer, after up to `max_retries` more attempts; throws what the last one met. */
  async #post(queries: unknown[], signal: AbortSignal): Promise<unknown> {
    const {
      retrieval_service_url: url,
      topk,
      default_timeout: timeoutS,
      max_retries: retries,
    } = this.settings;
    const request = JSON.stringify({ queries, topk, return_scores: true });
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#attempt(
          url,
          request,
          AbortSignal.any([signal, AbortSignal.timeout(timeoutS * 1000)]),
        );
      } catch (error) {
        signal.throwIfAborted();
        const failure =
          error instanceof AttemptError
            ? error
            : new AttemptError(
                (error as Error).name === 'TimeoutError'
                  ? `no answer from ${url} in ${timeoutS} s`
                  : `cannot reach ${url}: ${describeFetchError(error)}`,
                true,
              );
        if (!failure.retry || attempt >= retries) throw failure;
        await sleep(failure.retryAfterMs ?? 1000 * (attempt + 1), undefined, { signal });
      }
    }
  }

  async #attempt(url: string, body: string, signal: AbortSignal): Promise<unknown> {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...this.#headers },
      body,
      signal,
    });
    const text = await response.text();
    if (!response.ok) {
      const retryAfter = Number(response.headers.get('retry-after'));
      throw new AttemptError(
        `HTTP ${response.status} from ${url}: ${refusalDetail(text)}`,
        RETRIED.has(response.status),
        Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined,
      );
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new AttemptError(
        `${url} answered something that is not JSON: ${text.slice(0, DETAIL_CHARS)}`,
        false,
      );
    }
  }
}

/** A refusal's reason: Fusebox's `detail` (or FastAPI's), else the start of the body. */
function refusalDetail(text: string): string {
  try {
    const { detail } = JSON.parse(text) as { detail?: unknown };
    if (typeof detail === 'string') return detail;
    if (detail !== undefined) return JSON.stringify(detail).slice(0, DETAIL_CHARS);
  } catch {
    // Not JSON: the text itself says what happened.
  }
  return text.slice(0, DETAIL_CHARS) || '(empty body)';
}

/** fetch's TypeError says only `fetch failed`; the reason (ECONNREFUSED, …) is its cause. */
function describeFetchError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
