import { randomUUID } from 'node:crypto';
import { UnknownInstanceError } from './errors/unknown-instance-error';
import { type ToolSchema, type ToolSchemaInput, parseToolSchema } from './tool-schema';
import type { ToolResponse } from './tool-response';

/**
 * Keyword arguments of a tool call, as verl passes `**kwargs`: `create_kwargs` such as `ground_truth` for
 * `create`, `execute_kwargs` for `execute`, and so on. `signal` aborts the call; `requestId` names the rollout
 * that makes it (`runEpisode` passes the trajectory's), so a tool that records its calls can say whose they are.
 *
 * @example
 * await tool.execute(id, { code: 'print(1)' }, { signal: AbortSignal.timeout(60_000) });
 */
export interface ToolKwargs {
  signal?: AbortSignal;
  requestId?: string;
  [key: string]: unknown;
}

/**
 * What `execute` returns: verl's `(ToolResponse, reward, metrics)` as named fields.
 *
 * @example
 * const { response, reward, metrics }: ToolExecution = await tool.execute(id, { answer: '72' });
 */
export interface ToolExecution {
  response: ToolResponse;
  /** The step reward of this call, or null when the tool has none. */
  reward: number | null;
  metrics: Record<string, unknown>;
}

/**
 * A tool with verl's lifecycle: `create` one instance per trajectory, `execute` it any number of times,
 * `calcReward`, then `release`. Subclasses keep their per-instance state through `initialState` and `state`, so
 * an unknown or already released id always throws `UnknownInstanceError` rather than crashing on a missing key.
 *
 * @example
 * class EchoTool extends BaseTool<{ calls: number }> {
 *   protected initialState() {
 *     return { calls: 0 };
 *   }
 *   async execute(instanceId: string, parameters: Record<string, unknown>) {
 *     this.state(instanceId).calls += 1;
 *     return { response: { text: String(parameters.text) }, reward: null, metrics: {} };
 *   }
 * }
 * const echo = new EchoTool({}, { type: 'function', function: { name: 'echo', description: 'Echoes text.' } });
 */
export abstract class BaseTool<State = unknown> {
  readonly name: string;
  readonly schema: ToolSchema;
  readonly config: Readonly<Record<string, unknown>>;
  readonly #instances = new Map<string, State>();

  constructor(config: Record<string, unknown>, schema: ToolSchemaInput) {
    this.config = config;
    this.schema = parseToolSchema(schema);
    this.name = this.schema.function.name;
  }

  /**
   * Creates an instance for one trajectory; a given id is reused (verl overwrites it too).
   *
   * @example
   * const { instanceId } = await tool.create(undefined, { ground_truth: '72' });
   */
  async create(
    instanceId?: string,
    kwargs: ToolKwargs = {},
  ): Promise<{ instanceId: string; response: ToolResponse }> {
    const id = instanceId ?? randomUUID();
    this.#instances.set(id, await this.initialState(kwargs));
    return { instanceId: id, response: {} };
  }

  /** Runs the tool with the model's arguments. */
  abstract execute(
    instanceId: string,
    parameters: Record<string, unknown>,
    kwargs?: ToolKwargs,
  ): Promise<ToolExecution>;

  /** The instance's reward at the end of the trajectory; 0 unless the tool defines one. */
  calcReward(instanceId: string, _kwargs: ToolKwargs = {}): Promise<number> {
    // An executor that throws rejects the promise, so an unknown id rejects rather than throwing synchronously.
    return new Promise((resolve) => {
      this.state(instanceId);
      resolve(0);
    });
  }

  /** Frees the instance. Releasing twice throws `UnknownInstanceError`. */
  release(instanceId: string, _kwargs: ToolKwargs = {}): Promise<void> {
    return new Promise((resolve) => {
      if (!this.#instances.delete(instanceId)) throw new UnknownInstanceError(this.name, instanceId);
      resolve();
    });
  }

  /** Frees what the tool object holds (clients, connections). A no-op unless the tool holds any. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  /** The state a new instance starts with, from the `create` kwargs. */
  protected abstract initialState(kwargs: ToolKwargs): State | Promise<State>;

  /** The live state of an instance; throws `UnknownInstanceError` for an id that is not held. */
  protected state(instanceId: string): State {
    if (!this.#instances.has(instanceId)) throw new UnknownInstanceError(this.name, instanceId);
    return this.#instances.get(instanceId) as State;
  }
}
