import type { BaseTool, ToolKwargs } from '../base-tool';
import { mapConcurrent } from '../map-concurrent';
import type { ParsedToolCall } from '../tool-call-parser';
import { truncateToolResponse } from '../truncate';
import type { ToolCallRecord, ToolsKwargs } from './episode';
import type { ResolvedLimits } from './limits';
import type { ToolInstance } from './tool-instances';

const FORMAT_HINT =
  'Write each call as <tool_call>{"name": <function-name>, "arguments": <args-json-object>}</tool_call>.';

/**
 * Runs the tool calls of one assistant turn, at most `maxParallelCalls` at a time, and returns one record per
 * call in the order the model wrote them. Calls that cannot run get a record whose response tells the model
 * why, so it can correct itself; a tool that throws gets verl's `Error when executing tool: …` text. Only an
 * abort of the episode propagates.
 */
export async function runToolCalls(
  calls: readonly ParsedToolCall[],
  requestId: string,
  turn: number,
  instances: ReadonlyMap<string, ToolInstance>,
  toolsKwargs: ToolsKwargs,
  limits: ResolvedLimits,
  signal: AbortSignal,
): Promise<ToolCallRecord[]> {
  return mapConcurrent(
    calls,
    limits.maxParallelCalls,
    async (call, index) => {
      const base = { turn, index, reward: null, metrics: {}, durationMs: 0 };
      if (!call.ok) {
        return finish(
          { ...base, name: null, arguments: null, status: 'malformed' },
          `Error: ${call.problem}. ${FORMAT_HINT}`,
          limits,
        );
      }
      const instance = instances.get(call.name);
      if (!instance) {
        const known = [...instances.keys()].join(', ') || 'none';
        const text = `Error: there is no tool named ${JSON.stringify(call.name)}. Available tools: ${known}.`;
        return finish(
          { ...base, name: call.name, arguments: call.arguments, status: 'unknown_tool' },
          text,
          limits,
        );
      }
      return execute(
        instance.tool,
        instance.instanceId,
        call,
        { ...base, name: call.name, arguments: call.arguments },
        { ...toolsKwargs[call.name]?.execute_kwargs, requestId, signal },
        limits,
      );
    },
    signal,
  );
}

async function execute(
  tool: BaseTool,
  instanceId: string,
  call: Extract<ParsedToolCall, { ok: true }>,
  base: Omit<ToolCallRecord, 'status' | 'response' | 'truncated'>,
  kwargs: ToolKwargs & { signal: AbortSignal },
  limits: ResolvedLimits,
): Promise<ToolCallRecord> {
  const { signal } = kwargs;
  const started = performance.now();
  try {
    const result = await tool.execute(instanceId, call.arguments, kwargs);
    const record = {
      ...base,
      status: 'ok' as const,
      reward: result.reward,
      metrics: result.metrics,
      durationMs: performance.now() - started,
    };
    return finish(record, result.response.text ?? '', limits);
  } catch (error) {
    signal.throwIfAborted();
    const record = { ...base, status: 'error' as const, durationMs: performance.now() - started };
    return finish(record, `Error when executing tool: ${(error as Error).message}`, limits);
  }
}

function finish(
  record: Omit<ToolCallRecord, 'response' | 'truncated'>,
  text: string,
  limits: ResolvedLimits,
): ToolCallRecord {
  const { text: response, truncated } = truncateToolResponse(
    text,
    limits.maxToolResponseLength,
    limits.toolResponseTruncateSide,
  );
  return { ...record, response, truncated };
}
