import { BaseTool, type ToolExecution, type ToolKwargs } from './base-tool';
import { computeGsm8kScore } from './gsm8k-score';
import { pythonFloatRepr, pythonStringRepr } from './python-repr';
import type { ToolSchemaInput } from './tool-schema';

/**
 * The schema of verl's example config `gsm8k_tool_config.yaml`, used when a config gives none.
 *
 * @example
 * new Gsm8kTool({}, GSM8K_TOOL_SCHEMA);
 */
export const GSM8K_TOOL_SCHEMA: ToolSchemaInput = {
  type: 'function',
  function: {
    name: 'calc_gsm8k_reward',
    description:
      'A tool for calculating the reward of gsm8k. (1.0 if parsed answer is correct, 0.0 if parsed answer is incorrect or not correctly parsed)',
    parameters: {
      type: 'object',
      properties: {
        answer: {
          type: 'string',
          description: "The model's answer to the GSM8K math problem, must be a digits",
        },
      },
      required: ['answer'],
    },
  },
};

/**
 * verl's step penalty for submitting an answer that does not score better than the previous one.
 *
 * @example
 * (await tool.execute(id, { answer: 'same as before' })).reward === NO_IMPROVEMENT_PENALTY; // true
 */
export const NO_IMPROVEMENT_PENALTY = -0.05;

interface Gsm8kState {
  response: string;
  groundTruth: string | null;
  reward: number;
}

/**
 * verl's `Gsm8kTool` (`calc_gsm8k_reward(answer)`), with the same scoring and texts: the answer is prefixed with
 * `#### `, scored by `flexible` extraction against `ground_truth` (from `create`'s kwargs or their
 * `create_kwargs`), and the step reward is 0 when the score improved, else -0.05.
 *
 * @example
 * const tool = new Gsm8kTool();
 * const { instanceId } = await tool.create(undefined, { ground_truth: '72' });
 * const { response, reward } = await tool.execute(instanceId, { answer: '72' });
 * // response.text === "Current parsed answer='72' reward=1.0", reward === 0
 */
export class Gsm8kTool extends BaseTool<Gsm8kState> {
  static readonly defaultSchema = GSM8K_TOOL_SCHEMA;
  constructor(config: Record<string, unknown> = {}, schema: ToolSchemaInput = GSM8K_TOOL_SCHEMA) {
    super(config, schema);
  }

  protected initialState(kwargs: ToolKwargs): Gsm8kState {
    const nested = kwargs.create_kwargs as { ground_truth?: unknown } | undefined;
    const groundTruth = kwargs.ground_truth ?? nested?.ground_truth ?? null;
    return {
      response: '',
      groundTruth:
        groundTruth === null || typeof groundTruth === 'string' ? groundTruth : JSON.stringify(groundTruth),
      reward: 0,
    };
  }

  execute(instanceId: string, parameters: Record<string, unknown>): Promise<ToolExecution> {
    return new Promise((resolve) => {
      const state = this.state(instanceId);
      const raw = parameters.answer ?? '';
      const answer = typeof raw === 'string' ? raw : JSON.stringify(raw);
      state.response = answer.startsWith('#### ') ? answer : `#### ${answer}`;
      const { score, parsed } = this.#score(state);
      const reward = score > state.reward ? 0 : NO_IMPROVEMENT_PENALTY;
      state.reward = score;
      // verl prints `reward` with Python's repr: the integer 0 when nothing parsed, otherwise a float.
      const shown = parsed === null ? String(score) : pythonFloatRepr(score);
      resolve({
        response: { text: `Current parsed answer=${pythonStringRepr(answer)} reward=${shown}` },
        reward,
        metrics: {},
      });
    });
  }

  override calcReward(instanceId: string): Promise<number> {
    return new Promise((resolve) => resolve(this.#score(this.state(instanceId)).score));
  }

  #score(state: Gsm8kState): { score: number; parsed: string | null } {
    return computeGsm8kScore(state.response, state.groundTruth, {
      method: 'flexible',
      formatScore: 0,
      score: 1,
    });
  }
}
