import { setTimeout as sleep } from 'node:timers/promises';
import { type Dispatcher, request } from 'undici';
import { z } from 'zod';
import { GenerateError } from '../errors/generate-error';
import { type JsonValue, pythonJsonDumps } from '../python-json';
import type { ChatMessage } from '../rollout/chat-message';
import type { Completion, Generate, GenerateRequest } from '../rollout/generate';
import { systemPromptWithTools } from '../tools-system-prompt';

/**
 * Where and how to reach an OpenAI-compatible chat-completions server (vLLM, SGLang, llama.cpp…).
 *
 * @example
 * const options: OpenAIGenerateOptions = { baseUrl: 'http://127.0.0.1:8000/v1', model: 'qwen', retries: 5 };
 */
export interface OpenAIGenerateOptions {
  /** The API root including `/v1`, e.g. `http://127.0.0.1:8000/v1`. */
  baseUrl: string;
  model: string;
  /** Sent as a bearer token when set. */
  apiKey?: string;
  /** Merged into every request body: `temperature`, `top_p`, `max_tokens`, `stop`, `seed`… */
  sampling?: Record<string, JsonValue>;
  /**
   * `request` (default) sends the schemas as the `tools` field, and the server's chat template renders them.
   * `system-prompt` writes verl's `# Tools` block into the system message instead, for servers started without
   * tool support (llama.cpp without `--jinja`).
   */
  toolsIn?: 'request' | 'system-prompt';
  /** Per attempt, in ms (default 300 000: long generations on a busy engine take minutes). */
  timeoutMs?: number;
  /** Further attempts after a network error, a timeout, 408, 429 or 5xx (default 3). Other 4xx never retry. */
  retries?: number;
  /** The first backoff, doubled each retry with ±50% jitter (default 500 ms). `Retry-After` wins when sent. */
  retryDelayMs?: number;
  /** An undici dispatcher, for connection pools, proxies or tests. */
  dispatcher?: Dispatcher;
}

const completionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z
            .array(z.object({ function: z.object({ name: z.string(), arguments: z.string() }) }))
            .nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: z.object({ completion_tokens: z.number().int().nonnegative() }).nullish(),
});

/**
 * A policy backed by an OpenAI-compatible `/chat/completions` endpoint, on undici. Tool calls the server parses
 * itself (`tool_calls`) are written back into the text as `<tool_call>` blocks, so the driver sees the same
 * text whichever side parses, and dumps look like verl's.
 *
 * @example
 * const generate = createOpenAIGenerate({
 *   baseUrl: 'http://127.0.0.1:8000/v1',
 *   model: 'Qwen/Qwen2.5-3B-Instruct',
 *   sampling: { temperature: 1.0, max_tokens: 1024 },
 * });
 */
export function createOpenAIGenerate(options: OpenAIGenerateOptions): Generate {
  const url = endpoint(options.baseUrl);
  if (typeof options.model !== 'string' || options.model === '')
    throw new TypeError('expected options.model to be a model name');
  const timeoutMs = positive('timeoutMs', options.timeoutMs, 300_000);
  const retries = options.retries ?? 3;
  if (!Number.isInteger(retries) || retries < 0)
    throw new TypeError(`expected options.retries to be a non-negative integer, got ${String(retries)}`);
  const retryDelayMs = positive('retryDelayMs', options.retryDelayMs, 500);
  const toolsIn = options.toolsIn ?? 'request';
  if (toolsIn !== 'request' && toolsIn !== 'system-prompt')
    throw new TypeError(`expected options.toolsIn to be request or system-prompt, got ${String(toolsIn)}`);
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;

  return async (generateRequest, { signal }) => {
    const body = JSON.stringify(requestBody(generateRequest, options, toolsIn));
    for (let attempt = 1; ; attempt += 1) {
      const outcome = await attemptOnce({
        url,
        headers,
        body,
        dispatcher: options.dispatcher,
        timeoutMs,
        signal,
        attempt,
      });
      if (!('error' in outcome)) return outcome;
      if (!outcome.retryable || attempt > retries) throw outcome.error;
      const backoff = retryDelayMs * 2 ** (attempt - 1) * (0.5 + Math.random());
      await sleep(outcome.retryAfterMs ?? backoff, undefined, { signal });
    }
  };
}

interface Attempt {
  url: string;
  headers: Record<string, string>;
  body: string;
  dispatcher: Dispatcher | undefined;
  timeoutMs: number;
  signal: AbortSignal;
  attempt: number;
}

type Failure = { error: GenerateError; retryable: boolean; retryAfterMs: number | null };

async function attemptOnce({
  url,
  headers,
  body,
  dispatcher,
  timeoutMs,
  signal,
  attempt,
}: Attempt): Promise<Completion | Failure> {
  let statusCode: number;
  let text: string;
  let retryAfter: string | string[] | undefined;
  try {
    const response = await request(url, {
      method: 'POST',
      headers,
      body,
      dispatcher,
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
    });
    statusCode = response.statusCode;
    retryAfter = response.headers['retry-after'];
    text = await response.body.text();
  } catch (error) {
    signal.throwIfAborted();
    const reason =
      (error as Error).name === 'TimeoutError'
        ? `no answer within ${timeoutMs} ms`
        : (error as Error).message;
    return {
      error: new GenerateError(`${url} failed: ${reason}`, null, attempt, { cause: error }),
      retryable: true,
      retryAfterMs: null,
    };
  }
  if (statusCode === 200) return toCompletion(text, attempt);
  const error = new GenerateError(
    `${url} answered HTTP ${statusCode}: ${text.slice(0, 500)}`,
    statusCode,
    attempt,
  );
  return { error, retryable: isRetryable(statusCode), retryAfterMs: parseRetryAfter(retryAfter) };
}

function parseRetryAfter(header: string | string[] | undefined): number | null {
  if (header === undefined) return null;
  const seconds = Number(Array.isArray(header) ? header[0] : header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : null;
}

function isRetryable(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

function requestBody(
  generateRequest: GenerateRequest,
  options: OpenAIGenerateOptions,
  toolsIn: 'request' | 'system-prompt',
): Record<string, unknown> {
  const { messages, tools } = generateRequest;
  const body: Record<string, unknown> = { ...options.sampling, model: options.model };
  if (toolsIn === 'request' || tools.length === 0) {
    body.messages = messages;
    if (tools.length > 0) body.tools = tools;
    return body;
  }
  const [first, ...rest] = messages;
  const hasSystem = first?.role === 'system';
  const system: ChatMessage = {
    role: 'system',
    content: systemPromptWithTools(hasSystem ? first.content : undefined, tools) ?? '',
  };
  body.messages = [system, ...(hasSystem ? rest : messages)];
  return body;
}

function toCompletion(text: string, attempts: number): Completion {
  let parsed;
  try {
    parsed = completionSchema.parse(JSON.parse(text));
  } catch (error) {
    throw new GenerateError(
      `the server's answer is not a chat completion: ${text.slice(0, 500)}`,
      200,
      attempts,
      { cause: error },
    );
  }
  const choice = parsed.choices[0] as (typeof parsed.choices)[number];
  const calls = (choice.message.tool_calls ?? []).map(
    ({ function: call }) => `<tool_call>\n${encodeCall(call.name, call.arguments)}\n</tool_call>`,
  );
  const content = [choice.message.content ?? '', ...calls].filter((part) => part !== '').join('\n');
  const reason = choice.finish_reason;
  const finishReason = reason === 'length' || reason === 'tool_calls' ? reason : 'stop';
  const tokens = parsed.usage?.completion_tokens;
  return tokens === undefined
    ? { content, finishReason }
    : { content, finishReason, completionTokens: tokens };
}

// Arguments that are not JSON are kept verbatim, so the driver's parser reports them to the model as malformed.
function encodeCall(name: string, args: string): string {
  try {
    return pythonJsonDumps({ name, arguments: JSON.parse(args) as JsonValue });
  } catch {
    return `{"name": ${JSON.stringify(name)}, "arguments": ${args}}`;
  }
}

function endpoint(baseUrl: string): string {
  let parsed: URL;
  try {
    parsed = new URL(baseUrl);
  } catch {
    throw new TypeError(
      `expected options.baseUrl to be an http(s) URL such as http://127.0.0.1:8000/v1, got ${JSON.stringify(baseUrl)}`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`expected options.baseUrl to be an http(s) URL, got ${JSON.stringify(baseUrl)}`);
  }
  return `${baseUrl.replace(/\/+$/, '')}/chat/completions`;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0)
    throw new TypeError(`expected options.${name} to be a positive number of ms, got ${String(value)}`);
  return value;
}
