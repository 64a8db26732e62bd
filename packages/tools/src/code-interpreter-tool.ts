import { type Limiter, createLocalLimiter } from '@fusebox/rate-limiter';
import {
  type RunCodeRequestInput,
  type RunCodeResponse,
  type SandboxClient,
  createSandboxClient,
} from '@fusebox/sandbox-client';
import {
  LANGUAGES,
  REQUEST_ID_HEADER,
  TOOL_INSTANCE_HEADER,
  isRolloutId,
  languageSchema,
} from '@fusebox/sandbox-client/protocol';
import { BaseTool, type ToolExecution, type ToolKwargs } from './base-tool';
import { parseOptions } from './parse-options';
import { type CodeInterpreterConfig, codeInterpreterConfigSchema } from './code-interpreter-config';
import { openGlobalLimiter } from './global-limiter';
import { type RunDescription, VERL_NO_STDOUT, describeRun } from './describe-run';
import type { ToolSchemaInput } from './tool-schema';

/**
 * The schema of verl's `sandbox_fusion_tool_config.yaml`, used when a config gives none.
 *
 * @example
 * new CodeInterpreterTool({ sandbox_fusion_url: url }, CODE_INTERPRETER_SCHEMA);
 */
export const CODE_INTERPRETER_SCHEMA: ToolSchemaInput = {
  type: 'function',
  function: {
    name: 'code_interpreter',
    description: 'A tool for executing code.',
    parameters: {
      type: 'object',
      properties: { code: { type: 'string', description: 'The code to execute.' } },
      required: ['code'],
    },
  },
};

/**
 * What a code interpreter can be given besides its config: a client or a global limiter to share.
 *
 * @example
 * new CodeInterpreterTool(config, undefined, { limiter: createLocalLimiter({ limit: 4 }) });
 */
export interface CodeInterpreterOptions {
  /** Defaults to a client of `sandbox_fusion_url` that the tool owns and closes. */
  client?: SandboxClient;
  /** The global limiter; defaults to one built from the config (Postgres with `database_url`, else in-process). */
  limiter?: Limiter;
}

/** verl's HTTP deadline: compile + run timeouts plus 10 s of slack for the round trip. */
const HTTP_SLACK_S = 10;

/**
 * The headers with which Fusebox records who sent a run, so the dashboard joins a dumped sample's tool calls to
 * its own runs: the rollout's request id (the dump's `request_id`) and this instance. An id that cannot be a
 * header value (a caller's own, with spaces) is left out rather than failing the run.
 */
function rolloutHeaders(instanceId: string, requestId: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (isRolloutId(instanceId)) headers[TOOL_INSTANCE_HEADER] = instanceId;
  if (requestId !== undefined && isRolloutId(requestId)) headers[REQUEST_ID_HEADER] = requestId;
  return headers;
}

interface CodeState {
  categories: string[];
}

/**
 * verl's `SandboxFusionTool` (`code_interpreter`): runs the model's code through `@fusebox/sandbox-client`
 * against Fusebox's API or any SandboxFusion, at most `num_workers` at once from this object and `rate_limit`
 * at once globally (`@fusebox/rate-limiter`: Postgres with `database_url`, in-process otherwise; none with
 * `enable_global_rate_limit: false`). The model reads what happened (see `describeRun`, or `compat: 'verl'`
 * for verl's exact text), `calcReward` scores the runs, and each call reports status, duration, queue wait and
 * output bytes. Call `close()` when done.
 *
 * @example
 * const tool = new CodeInterpreterTool({ sandbox_fusion_url: 'http://127.0.0.1:8080/run_code' });
 * const { instanceId } = await tool.create();
 * const { response, metrics } = await tool.execute(instanceId, { code: 'print(6 * 7)' });
 * // response.text === '42\n', metrics.status === 'success'
 * await tool.release(instanceId);
 * await tool.close();
 */
export class CodeInterpreterTool extends BaseTool<CodeState> {
  static readonly defaultSchema = CODE_INTERPRETER_SCHEMA;
  readonly settings: CodeInterpreterConfig;
  readonly #client: SandboxClient;
  readonly #ownsClient: boolean;
  readonly #workers: Limiter;
  #global: Promise<Limiter | null>;
  #ownsGlobal = false;

  constructor(
    config: Record<string, unknown>,
    schema: ToolSchemaInput = CODE_INTERPRETER_SCHEMA,
    options: CodeInterpreterOptions = {},
  ) {
    super(config, schema);
    this.settings = parseOptions(codeInterpreterConfigSchema, config, 'config');
    const endpoint = this.settings.sandbox_fusion_url.replace(/\/run_code\/?$/, '');
    this.#client = options.client ?? createSandboxClient({ endpoint });
    this.#ownsClient = options.client === undefined;
    this.#workers = createLocalLimiter({ limit: this.settings.num_workers, key: `${this.name}.workers` });
    this.#global = Promise.resolve(options.limiter ?? null);
    if (!options.limiter && this.settings.enable_global_rate_limit) this.#global = this.#globalLimiter();
    // A rejected global limiter is reported by the first execute; until then it must not crash the process.
    this.#global.catch(() => undefined);
  }

  protected initialState(): CodeState {
    return { categories: [] };
  }

  /**
   * Runs `parameters.code` (with optional `timeout` in seconds and `language`). Failures of the code, the sandbox
   * or the network become the tool message; only an abort rejects.
   */
  async execute(
    instanceId: string,
    parameters: Record<string, unknown>,
    kwargs: ToolKwargs = {},
  ): Promise<ToolExecution> {
    const state = this.state(instanceId);
    const signal = kwargs.signal ?? new AbortController().signal;
    const { code, timeout, language } = this.#arguments(parameters);
    const started = performance.now();
    let queueWaitMs = 0;
    let described: RunDescription;
    const parsedLanguage = languageSchema.safeParse(language);
    if (!parsedLanguage.success) {
      const text = `unsupported language ${JSON.stringify(language)}; use one of: ${LANGUAGES.join(', ')}`;
      described = {
        text: this.settings.compat === 'verl' ? VERL_NO_STDOUT : text,
        category: 'unsupported_language',
      };
    } else {
      try {
        const request: RunCodeRequestInput = {
          compile_timeout: timeout,
          run_timeout: timeout,
          code,
          stdin: null,
          memory_limit_MB: this.settings.memory_limit_mb,
          language: parsedLanguage.data,
          files: {},
          fetch_files: [],
        };
        const timeoutMs = (2 * timeout + HTTP_SLACK_S) * 1000;
        const headers = rolloutHeaders(instanceId, kwargs.requestId);
        const run = (permitSignal?: AbortSignal): Promise<RunCodeResponse> => {
          queueWaitMs = performance.now() - started;
          const callSignal = permitSignal ? AbortSignal.any([signal, permitSignal]) : signal;
          return this.#client.runCode(request, { signal: callSignal, timeoutMs, headers });
        };
        const global = await this.#global;
        const response = await this.#workers.withPermit(
          () => (global ? global.withPermit(run, { signal }) : run()),
          {
            signal,
          },
        );
        const context = { runTimeout: timeout, memoryLimitMb: this.settings.memory_limit_mb };
        described = describeRun(response, context, this.settings.compat);
      } catch (error) {
        signal.throwIfAborted();
        const text = `sandbox error: ${(error as Error).message}`;
        described = { text: this.settings.compat === 'verl' ? VERL_NO_STDOUT : text, category: 'api_error' };
      }
    }
    state.categories.push(described.category);
    return {
      response: { text: described.text },
      reward: null,
      metrics: {
        status: described.category,
        durationMs: performance.now() - started,
        queueWaitMs,
        outputBytes: Buffer.byteLength(described.text, 'utf8'),
      },
    };
  }

  override calcReward(instanceId: string): Promise<number> {
    return new Promise((resolve) => {
      const successes = this.state(instanceId).categories.map((category) => (category === 'success' ? 1 : 0));
      const total = successes.reduce<number>((sum, value) => sum + value, 0);
      const scores: Record<CodeInterpreterConfig['reward'], number> = {
        last_success: successes.at(-1) ?? 0,
        any_success: total > 0 ? 1 : 0,
        success_rate: successes.length > 0 ? total / successes.length : 0,
        none: 0,
      };
      resolve(scores[this.settings.reward]);
    });
  }

  /** Closes the sandbox client and the Postgres limiter this tool created; shared and injected ones stay open. */
  override async close(): Promise<void> {
    await this.#workers.close();
    const global = await this.#global.catch(() => null);
    if (this.#ownsGlobal && global) await global.close();
    if (this.#ownsClient) await this.#client.close();
  }

  #arguments(parameters: Record<string, unknown>): { code: string; timeout: number; language: string } {
    const { code = '', timeout, language } = parameters;
    return {
      // verl runs str(code) on whatever the model sent.
      code: typeof code === 'string' ? code : JSON.stringify(code),
      timeout: typeof timeout === 'number' && timeout > 0 ? timeout : this.settings.default_timeout,
      language: typeof language === 'string' && language !== '' ? language : this.settings.default_language,
    };
  }

  async #globalLimiter(): Promise<Limiter> {
    const { limiter, owned } = await openGlobalLimiter(this.settings);
    this.#ownsGlobal = owned;
    return limiter;
  }
}
