import { z } from 'zod';
import { BaseTool, type ToolExecution, type ToolKwargs, type ToolSchemaInput } from '@fusebox/tools';
import {
  computeRewardResponseSchema,
  processActionResponseSchema,
  startInstanceResponseSchema,
} from '@fusebox/agent-sessions';
import type { FuseboxApi } from './fusebox-api';

/** What the model sees: one Python session per task, kept for the whole episode. */
export const RUN_PYTHON_SCHEMA: ToolSchemaInput = {
  type: 'function',
  function: {
    name: 'run_python',
    description:
      "Run Python code in this task's session. Definitions stay between calls, and the task's tests run in the " +
      'same session when you finish.',
    parameters: {
      type: 'object',
      properties: { code: { type: 'string', description: 'The Python code to run.' } },
      required: ['code'],
    },
  },
};

// The observation's last line says how the run ended (packages/agent-sessions/src/observation.ts), and a restarted
// session adds one more line after it; the demo counts errors by kind from those lines.
const ENDINGS: [RegExp, string][] = [
  [/^exit code 0$/m, 'success'],
  [/^timeout after /m, 'timeout'],
  [/^memory limit exceeded/m, 'memory_limit'],
  [/^compile error/m, 'compile_error'],
  [/^sandbox error: /m, 'sandbox_error'],
  [/^exit code -?\d+$/m, 'runtime_error'],
];

interface SessionState {
  sid: string;
}

/**
 * An agent task as a tool, through verl's swedev session API: `create` opens a session on the task its
 * `instance_hash` names (/start_instance), each call is an action (/process_action), and `calcReward` ends the
 * session (/postprocess) and runs the task's tests (/compute_reward), in the order verl's client calls them.
 */
export class AgentSessionTool extends BaseTool<SessionState> {
  readonly #api: FuseboxApi;

  constructor(api: FuseboxApi) {
    super({}, RUN_PYTHON_SCHEMA);
    this.#api = api;
  }

  protected async initialState(kwargs: ToolKwargs): Promise<SessionState> {
    const instanceHash = kwargs.instance_hash;
    if (typeof instanceHash !== 'string')
      throw new TypeError('expected create_kwargs.instance_hash (digits)');
    return this.#api.post('/start_instance', { instance_hash: instanceHash }, startInstanceResponseSchema, {
      ...(kwargs.signal ? { signal: kwargs.signal } : {}),
    });
  }

  async execute(
    instanceId: string,
    parameters: Record<string, unknown>,
    kwargs: ToolKwargs = {},
  ): Promise<ToolExecution> {
    const { sid } = this.state(instanceId);
    const code = parameters.code;
    const started = performance.now();
    const { content } = await this.#api.post(
      '/process_action',
      { sid, content: typeof code === 'string' ? code : JSON.stringify(code ?? '') },
      processActionResponseSchema,
      kwargs.signal ? { signal: kwargs.signal } : {},
    );
    const ending = content.trimEnd().split('\n').slice(-2).join('\n');
    const status = ENDINGS.find(([pattern]) => pattern.test(ending))?.[1] ?? 'success';
    return {
      response: { text: content },
      reward: null,
      metrics: { status, sid, durationMs: performance.now() - started },
    };
  }

  override async calcReward(instanceId: string): Promise<number> {
    const { sid } = this.state(instanceId);
    await this.#api.post('/postprocess', { sid }, z.unknown());
    const { reward } = await this.#api.post('/compute_reward', { sid }, computeRewardResponseSchema);
    return reward;
  }
}
