import { randomUUID } from 'node:crypto';
import { BaseTool } from '../base-tool';
import { isToolsError } from '../errors/tools-error';
import { type ToolCallFormat, parseToolCalls } from '../tool-call-parser';
import type { ChatMessage } from './chat-message';
import type { EpisodeRequest, EpisodeState, FinishReason, Trajectory } from './episode';
import type { Completion, Generate } from './generate';
import { type EpisodeLimits, resolveLimits } from './limits';
import { type Tokenizer, approximateTokenizer } from './tokenizer';
import { runToolCalls } from './tool-calls';
import { type ToolInstance, createToolInstances, finishToolInstances } from './tool-instances';

/**
 * How to run episodes: the policy, the tools, the limits.
 *
 * @example
 * const options: RunEpisodeOptions = { generate, tools, limits: { maxAssistantTurns: 5 }, signal };
 */
export interface RunEpisodeOptions {
  generate: Generate;
  tools?: readonly BaseTool[];
  limits?: EpisodeLimits;
  /** Counts tokens for `limits.maxResponseTokens`; defaults to `approximateTokenizer`. */
  tokenizer?: Tokenizer;
  format?: ToolCallFormat;
  /** The trajectory's score; defaults to the sum of the tools' `calcReward`. */
  score?: (trajectory: Trajectory) => number | Promise<number>;
  signal?: AbortSignal;
}

/**
 * Options checked once, so a batch validates them once rather than per episode.
 *
 * @example
 * const checked: CheckedEpisodeOptions = checkEpisodeOptions(options);
 */
export interface CheckedEpisodeOptions extends RunEpisodeOptions {
  checked: true;
  tools: readonly BaseTool[];
  resolvedLimits: ReturnType<typeof resolveLimits>;
}

/**
 * Validates episode options up front; throws a TypeError saying what was expected.
 *
 * @example
 * const checked = checkEpisodeOptions({ generate, tools, limits: { maxAssistantTurns: 5 } });
 * for (const request of requests) await runEpisode(request, checked);
 */
export function checkEpisodeOptions(options: RunEpisodeOptions): CheckedEpisodeOptions {
  if (typeof options.generate !== 'function')
    throw new TypeError('expected options.generate to be a function');
  const tools = options.tools ?? [];
  const names = new Set<string>();
  for (const tool of tools) {
    if (!(tool instanceof BaseTool)) throw new TypeError('expected options.tools to hold BaseTool instances');
    if (names.has(tool.name)) throw new TypeError(`expected unique tool names, got ${tool.name} twice`);
    names.add(tool.name);
  }
  if (options.format !== undefined && options.format !== 'hermes' && options.format !== 'qwen25') {
    throw new TypeError(`expected options.format to be hermes or qwen25, got ${String(options.format)}`);
  }
  return { ...options, checked: true, tools, resolvedLimits: resolveLimits(options.limits) };
}

/**
 * Runs one multi-turn episode: creates an instance of every tool, then alternates model turns and tool calls
 * (PENDING → RUNNING → TOOL_CALLING → RUNNING … ) until the model answers without a tool call, a turn limit is
 * reached (COMPLETED), the engine or the token budget cuts the response (TRUNCATED), or generate or a tool's
 * creation fails (FAILED). Every tool's `calcReward` then `release` run at the end in all cases, an abort
 * included; an abort then rejects with `signal.reason`.
 *
 * @example
 * const trajectory = await runEpisode(
 *   { messages: [{ role: 'user', content: 'What is 2**10? Use the code tool.' }] },
 *   { generate: createOpenAIGenerate({ baseUrl: 'http://127.0.0.1:8000/v1', model: 'qwen' }), tools, limits: { maxAssistantTurns: 4 } },
 * );
 * console.log(trajectory.state, trajectory.finishReason, trajectory.score);
 */
export async function runEpisode(
  request: EpisodeRequest,
  options: RunEpisodeOptions | CheckedEpisodeOptions,
): Promise<Trajectory> {
  const checked = 'checked' in options ? options : checkEpisodeOptions(options);
  if (!Array.isArray(request.messages))
    throw new TypeError('expected request.messages to be an array of chat messages');
  const signal = checked.signal ?? new AbortController().signal;
  signal.throwIfAborted();

  const started = performance.now();
  const limits = checked.resolvedLimits;
  const tokenizer = checked.tokenizer ?? approximateTokenizer;
  const toolsKwargs = request.toolsKwargs ?? {};
  const messages: ChatMessage[] = request.messages.map((message) => ({ ...message }));
  const trajectory: Trajectory = {
    requestId: request.requestId ?? randomUUID().replaceAll('-', ''),
    state: 'FAILED',
    finishReason: 'error',
    transitions: ['PENDING'],
    messages,
    promptMessages: messages.length,
    tools: checked.tools.map((tool) => tool.schema),
    toolCalls: [],
    rewards: { tools: {}, steps: [] },
    score: 0,
    turns: { assistant: 0, user: 0 },
    responseTokens: 0,
    timings: { totalMs: 0, generateMs: 0, toolsMs: 0 },
    metrics: { malformedToolCalls: 0, unknownToolCalls: 0, toolErrors: 0 },
    groundTruth: request.groundTruth ?? null,
    extra: request.extra ?? {},
  };
  const enter = (state: EpisodeState) => trajectory.transitions.push(state);
  const end = (state: Trajectory['state'], reason: FinishReason) => {
    trajectory.state = state;
    trajectory.finishReason = reason;
    enter(state);
  };
  const fail = (error: unknown) => {
    signal.throwIfAborted();
    trajectory.error = {
      ...(isToolsError(error) ? { code: error.code } : {}),
      message: (error as Error).message,
    };
    end('FAILED', 'error');
  };

  let instances: ToolInstance[] = [];
  try {
    let created = true;
    try {
      instances = await createToolInstances(checked.tools, toolsKwargs, signal);
    } catch (error) {
      fail(error);
      created = false;
    }
    const byName = new Map(instances.map((instance) => [instance.tool.name, instance]));

    while (created) {
      enter('RUNNING');
      const turn = trajectory.turns.assistant;
      const generateStarted = performance.now();
      let completion;
      try {
        completion = await checked.generate(
          { requestId: trajectory.requestId, turn, messages, tools: trajectory.tools },
          { signal },
        );
        // A hand-written policy that returns the wrong shape fails its episode, not the whole batch.
        if (typeof (completion as Partial<Completion> | undefined)?.content !== 'string') {
          throw new TypeError('expected generate to resolve to { content: string, finishReason }');
        }
      } catch (error) {
        fail(error);
        break;
      } finally {
        trajectory.timings.generateMs += performance.now() - generateStarted;
      }
      trajectory.turns.assistant += 1;
      messages.push({ role: 'assistant', content: completion.content });
      trajectory.responseTokens += completion.completionTokens ?? tokenizer.count(completion.content);

      if (completion.finishReason === 'length' || trajectory.responseTokens >= limits.maxResponseTokens) {
        end('TRUNCATED', 'length');
        break;
      }
      const { calls } = parseToolCalls(completion.content, checked.format);
      if (calls.length === 0) {
        end('COMPLETED', 'stop');
        break;
      }
      // verl checks the turn limits before running the calls: the last turn's calls are never executed.
      if (trajectory.turns.assistant >= limits.maxAssistantTurns) {
        end('COMPLETED', 'max_assistant_turns');
        break;
      }
      if (trajectory.turns.user >= limits.maxUserTurns) {
        end('COMPLETED', 'max_user_turns');
        break;
      }

      enter('TOOL_CALLING');
      const toolsStarted = performance.now();
      const records = await runToolCalls(
        calls,
        trajectory.requestId,
        turn,
        byName,
        toolsKwargs,
        limits,
        signal,
      );
      trajectory.timings.toolsMs += performance.now() - toolsStarted;
      for (const record of records) {
        trajectory.toolCalls.push(record);
        if (record.reward !== null) trajectory.rewards.steps.push(record.reward);
        if (record.status === 'malformed') trajectory.metrics.malformedToolCalls += 1;
        if (record.status === 'unknown_tool') trajectory.metrics.unknownToolCalls += 1;
        if (record.status === 'error') trajectory.metrics.toolErrors += 1;
      }
      const toolTokens = records.reduce((sum, record) => sum + tokenizer.count(record.response), 0);
      // As verl: tool responses that would overflow the budget are not appended, and the episode ends there.
      if (trajectory.responseTokens + toolTokens >= limits.maxResponseTokens) {
        end('TRUNCATED', 'length');
        break;
      }
      trajectory.responseTokens += toolTokens;
      messages.push(...records.map((record) => ({ role: 'tool' as const, content: record.response })));
      trajectory.turns.user += 1;
    }
  } finally {
    const { rewards, errors } = await finishToolInstances(instances, toolsKwargs);
    trajectory.rewards.tools = rewards;
    if (errors.length > 0 && !trajectory.error) trajectory.error = { message: errors.join('; ') };
    trajectory.timings.totalMs = performance.now() - started;
  }
  trajectory.score = checked.score
    ? await checked.score(trajectory)
    : Object.values(trajectory.rewards.tools).reduce((sum, reward) => sum + reward, 0);
  return trajectory;
}
