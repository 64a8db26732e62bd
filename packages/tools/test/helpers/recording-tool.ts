import { setTimeout as sleep } from 'node:timers/promises';
import { BaseTool, type ToolExecution, type ToolKwargs } from '../../src/base-tool';

/**
 * A tool that records its lifecycle calls and answers what it is told to, for driver tests that are about the
 * driver rather than about a sandbox.
 */
export class RecordingTool extends BaseTool<{ calls: number }> {
  readonly events: string[] = [];
  inFlight = 0;
  peakInFlight = 0;

  constructor(
    name: string,
    private readonly behaviour: {
      answer?: (parameters: Record<string, unknown>) => string;
      delayMs?: number;
      fail?: string;
      reward?: number;
    } = {},
  ) {
    super({}, { type: 'function', function: { name, description: `The ${name} tool.` } });
  }

  protected initialState(kwargs: ToolKwargs): { calls: number } {
    this.events.push(`create ${JSON.stringify({ ...kwargs, signal: undefined })}`);
    return { calls: 0 };
  }

  async execute(
    instanceId: string,
    parameters: Record<string, unknown>,
    kwargs: ToolKwargs = {},
  ): Promise<ToolExecution> {
    const state = this.state(instanceId);
    this.events.push(`execute ${JSON.stringify(parameters)}`);
    this.inFlight += 1;
    this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
    try {
      if (this.behaviour.delayMs) await sleep(this.behaviour.delayMs, undefined, { signal: kwargs.signal });
      if (this.behaviour.fail) throw new Error(this.behaviour.fail);
      state.calls += 1;
      const text = this.behaviour.answer?.(parameters) ?? `ok ${JSON.stringify(parameters)}`;
      return { response: { text }, reward: 0.5, metrics: { calls: state.calls } };
    } finally {
      this.inFlight -= 1;
    }
  }

  override async calcReward(instanceId: string): Promise<number> {
    this.events.push('calcReward');
    const calls = await super.calcReward(instanceId).then(() => this.state(instanceId).calls);
    return this.behaviour.reward ?? calls;
  }

  override async release(instanceId: string): Promise<void> {
    this.events.push('release');
    await super.release(instanceId);
  }
}
