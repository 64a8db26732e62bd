import { BaseTool, CODE_INTERPRETER_SCHEMA, type ToolExecution, type ToolKwargs } from '@fusebox/tools';

interface CellAnswer {
  status: string;
  stdout: string;
  stderr: string;
}

/**
 * The code interpreter on Fusebox's stateful sandbox sessions: one sandboxed Python interpreter per episode
 * (`POST /v1/sandbox/sessions`), each call one cell run in it (`…/run`), so later turns build on earlier ones
 * without re-running them; released with `DELETE`. Same name and schema as verl's code interpreter.
 */
export class SessionCodeTool extends BaseTool<{ sessionId: string }> {
  readonly #api: string;

  constructor(api: string) {
    super({}, CODE_INTERPRETER_SCHEMA);
    this.#api = api;
  }

  protected async initialState(kwargs: ToolKwargs): Promise<{ sessionId: string }> {
    const answer = await this.#post('/v1/sandbox/sessions', {}, kwargs.signal);
    return { sessionId: (answer as { session_id: string }).session_id };
  }

  async execute(
    instanceId: string,
    parameters: Record<string, unknown>,
    kwargs: ToolKwargs = {},
  ): Promise<ToolExecution> {
    const { sessionId } = this.state(instanceId);
    const started = performance.now();
    const cell = (await this.#post(
      `/v1/sandbox/sessions/${sessionId}/run`,
      { code: typeof parameters.code === 'string' ? parameters.code : '' },
      kwargs.signal,
    )) as CellAnswer;
    return {
      response: { text: cell.stdout + cell.stderr },
      reward: null,
      metrics: {
        status: cell.status === 'ok' ? 'success' : cell.status,
        durationMs: performance.now() - started,
      },
    };
  }

  override async release(instanceId: string, kwargs: ToolKwargs = {}): Promise<void> {
    const { sessionId } = this.state(instanceId);
    await super.release(instanceId, kwargs);
    await fetch(`${this.#api}/v1/sandbox/sessions/${sessionId}`, { method: 'DELETE' });
  }

  async #post(path: string, body: unknown, signal: unknown): Promise<unknown> {
    const response = await fetch(`${this.#api}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      ...(signal instanceof AbortSignal ? { signal } : {}),
    });
    if (!response.ok) throw new Error(`${path} answered HTTP ${response.status}: ${await response.text()}`);
    return response.json();
  }
}
