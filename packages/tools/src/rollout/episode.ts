import type { JsonValue } from '../python-json';
import type { ToolSchema } from '../tool-schema';
import type { ChatMessage } from './chat-message';

/**
 * verl's per-sample `tools_kwargs`: keyword arguments for each lifecycle call, per tool name.
 *
 * @example
 * const toolsKwargs: ToolsKwargs = { calc_gsm8k_reward: { create_kwargs: { ground_truth: '72' } } };
 */
export type ToolsKwargs = Record<
  string,
  {
    create_kwargs?: Record<string, unknown>;
    execute_kwargs?: Record<string, unknown>;
    calc_reward_kwargs?: Record<string, unknown>;
    release_kwargs?: Record<string, unknown>;
  }
>;

/**
 * One prompt to roll out, as a row of verl's dataset gives it.
 *
 * @example
 * const request: EpisodeRequest = { messages: [{ role: 'user', content: 'What is 6 * 7?' }], groundTruth: '42' };
 */
export interface EpisodeRequest {
  /** Defaults to a random hex id, as verl's `uuid4().hex`. */
  requestId?: string;
  /** The prompt: usually a system and a user message. Tools are added by the driver, never written here. */
  messages: ChatMessage[];
  toolsKwargs?: ToolsKwargs;
  /** Written as `gts` in the dump. */
  groundTruth?: JsonValue;
  /** Per-sample extras written into the dump line, such as `data_source`, `acc` or `pred`. */
  extra?: Record<string, JsonValue>;
}

/**
 * The states of verl's `AsyncRolloutRequestStateEnum` that a text-only episode goes through.
 *
 * @example
 * trajectory.transitions satisfies EpisodeState[]; // ['PENDING', 'RUNNING', 'TOOL_CALLING', 'RUNNING', 'COMPLETED']
 */
export type EpisodeState = 'PENDING' | 'RUNNING' | 'TOOL_CALLING' | 'COMPLETED' | 'TRUNCATED' | 'FAILED';

/**
 * Why an episode ended. `stop`: the model answered without a tool call. `length`: the engine or the token budget
 * cut the response (state TRUNCATED). The turn limits end it COMPLETED, as in verl. `error`: generate or a tool
 * lifecycle call failed (state FAILED).
 *
 * @example
 * if (trajectory.finishReason === ('length' satisfies FinishReason)) truncated += 1;
 */
export type FinishReason = 'stop' | 'length' | 'max_assistant_turns' | 'max_user_turns' | 'error';

/**
 * One tool call of the episode. `status` is `ok` when the tool returned, `error` when it threw, `malformed` or
 * `unknown_tool` when the model's call could not be run; in those three cases the tool message tells the model
 * what was wrong.
 *
 * @example
 * const slow = trajectory.toolCalls.filter((call: ToolCallRecord) => call.durationMs > 10_000);
 */
export interface ToolCallRecord {
  /** The assistant turn it came from, 0-based, and its position in that turn. */
  turn: number;
  index: number;
  name: string | null;
  arguments: Record<string, unknown> | null;
  status: 'ok' | 'error' | 'malformed' | 'unknown_tool';
  /** The text sent back to the model, after truncation. */
  response: string;
  truncated: boolean;
  durationMs: number;
  reward: number | null;
  metrics: Record<string, unknown>;
}

/**
 * Everything an episode produced, ready for a reward function, the dump writer or the dashboard.
 *
 * @example
 * const solved = trajectories.filter((trajectory: Trajectory) => trajectory.score > 0).length;
 */
export interface Trajectory {
  requestId: string;
  state: 'COMPLETED' | 'TRUNCATED' | 'FAILED';
  finishReason: FinishReason;
  /** The states the episode went through, in order, ending with `state`. */
  transitions: EpisodeState[];
  /** The prompt messages, then every assistant and tool message of the episode. */
  messages: ChatMessage[];
  /** How many of `messages` are the prompt. */
  promptMessages: number;
  tools: ToolSchema[];
  toolCalls: ToolCallRecord[];
  /** `calcReward` of each tool at the end, and the step rewards `execute` returned, in order. */
  rewards: { tools: Record<string, number>; steps: number[] };
  /** The trajectory's score: `options.score`, or by default the sum of `rewards.tools`. */
  score: number;
  turns: { assistant: number; user: number };
  /** Tokens in the response so far (assistant and tool messages), as counted for the budget. */
  responseTokens: number;
  timings: { totalMs: number; generateMs: number; toolsMs: number };
  /** Tool calls the model got wrong: malformed, or naming a tool that does not exist. */
  metrics: { malformedToolCalls: number; unknownToolCalls: number; toolErrors: number };
  groundTruth: JsonValue;
  extra: Record<string, JsonValue>;
  /** Set when the state is FAILED, or when a cleanup call (calcReward, release) failed. */
  error?: { code?: string; message: string };
}
