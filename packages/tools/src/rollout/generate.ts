import type { ToolSchema } from '../tool-schema';
import type { ChatMessage } from './chat-message';

/**
 * What the driver asks a policy for: the conversation so far and the tools the model may call.
 *
 * @example
 * const generate: Generate = ({ turn }: GenerateRequest) => Promise.resolve({ content: `turn ${turn}`, finishReason: 'stop' });
 */
export interface GenerateRequest {
  requestId: string;
  /** 0 for the first assistant turn of the episode, then 1, 2, … */
  turn: number;
  messages: readonly ChatMessage[];
  tools: readonly ToolSchema[];
}

/**
 * One assistant turn. Tool calls are in `content` as `<tool_call>` blocks, as verl's tokenizer decodes them.
 *
 * @example
 * const completion: Completion = { content: '#### 42', finishReason: 'stop', completionTokens: 5 };
 */
export interface Completion {
  content: string;
  /** `length` means the engine hit its token limit: the episode ends TRUNCATED. */
  finishReason: 'stop' | 'length' | 'tool_calls';
  /** The engine's own token count for this turn; the driver's tokenizer counts when it is absent. */
  completionTokens?: number;
}

/**
 * A policy: the scripted one (`scriptedGenerate`), the OpenAI-compatible client (`createOpenAIGenerate`), or any
 * function of this shape. It must reject with `signal.reason` when aborted.
 *
 * @example
 * const echo: Generate = async ({ messages }) => ({ content: messages.at(-1)?.content ?? '', finishReason: 'stop' });
 */
export type Generate = (request: GenerateRequest, options: { signal: AbortSignal }) => Promise<Completion>;
