import { type Role, splitMessages, toolResponses } from '@fusebox/rollouts/chat-messages';

/** A tool call as the model wrote it, with its arguments decoded when they are valid JSON. */
export interface ToolCall {
  raw: string;
  name: string | null;
  arguments: Record<string, unknown> | null;
  /** The `code` argument, shown as code rather than as a JSON string. */
  code: string | null;
  /** Why the call could not be read (invalid JSON, never closed); null when it could. */
  problem: string | null;
}

export type Block =
  | { kind: 'text'; text: string }
  /** A `<think>` block; `closed` is false when the model never wrote `</think>`. */
  | { kind: 'think'; text: string; closed: boolean }
  /** A tool call, with the tool's response when the conversation has one for it. */
  | { kind: 'call'; call: ToolCall; response: string | null };

export interface ChatTurn {
  role: Role;
  /** The message as the dump has it. */
  text: string;
  /** Where the message came from: the prompt (`input`) or the model's response (`output`). */
  part: 'input' | 'output';
  blocks: Block[];
}

/** Reads one `<tool_call>` body: `{"name": …, "arguments": {…}}`, arguments possibly JSON-encoded twice. */
export function readToolCall(raw: string, closed: boolean): ToolCall {
  const call: ToolCall = { raw, name: null, arguments: null, code: null, problem: null };
  if (!closed) call.problem = 'this <tool_call> is never closed';
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    // Not the engine's own message: the server renders this text and the browser renders it again, and their
    // JSON.parse errors differ (Chromium adds "(line 1 column 8)"), which broke hydration (React's #418).
    call.problem ??= 'not valid JSON';
    return call;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    call.problem ??= 'not a JSON object with "name" and "arguments"';
    return call;
  }
  const { name, arguments: args } = value as { name?: unknown; arguments?: unknown };
  call.name = typeof name === 'string' ? name : null;
  let decoded = args;
  if (typeof decoded === 'string') {
    try {
      decoded = JSON.parse(decoded);
    } catch {
      // Left as a string: shown as it was written.
    }
  }
  if (typeof decoded === 'object' && decoded !== null && !Array.isArray(decoded)) {
    call.arguments = decoded as Record<string, unknown>;
    const code = call.arguments.code;
    call.code = typeof code === 'string' ? code : null;
  }
  return call;
}

/**
 * Cuts an assistant message into text, `<think>` blocks and tool calls, in order. A `<think>` that is never
 * closed ends at the next tool call (models often call a tool mid-thought) or at the end; a `</think>` with no
 * opening tag (the template put `<think>` in the prompt) makes everything before it thinking.
 */
export function assistantBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  const pushText = (from: number, to: number) => {
    const piece = text.slice(from, to);
    if (piece.trim() !== '') blocks.push({ kind: 'text', text: withoutEdgeNewlines(piece) });
  };
  const next = nextTagFinder(text);
  let at = 0;
  const orphanClose = text.indexOf('</think>');
  const firstOpen = text.indexOf('<think>');
  if (orphanClose >= 0 && (firstOpen < 0 || orphanClose < firstOpen)) {
    blocks.push({ kind: 'think', text: text.slice(0, orphanClose).trim(), closed: true });
    at = orphanClose + '</think>'.length;
  }
  while (at < text.length) {
    const think = next('<think>', at);
    const call = next('<tool_call>', at);
    if (think < 0 && call < 0) {
      pushText(at, text.length);
      break;
    }
    if (think >= 0 && (call < 0 || think < call)) {
      pushText(at, think);
      const body = think + '<think>'.length;
      const close = next('</think>', body);
      const nextCall = next('<tool_call>', body);
      if (close >= 0 && (nextCall < 0 || close < nextCall)) {
        blocks.push({ kind: 'think', text: text.slice(body, close).trim(), closed: true });
        at = close + '</think>'.length;
      } else {
        const end = nextCall >= 0 ? nextCall : text.length;
        blocks.push({ kind: 'think', text: text.slice(body, end).trim(), closed: false });
        at = end;
      }
      continue;
    }
    pushText(at, call);
    const body = call + '<tool_call>'.length;
    const close = next('</tool_call>', body);
    const raw = text.slice(body, close >= 0 ? close : text.length).trim();
    blocks.push({ kind: 'call', call: readToolCall(raw, close >= 0), response: null });
    at = close >= 0 ? close + '</tool_call>'.length : text.length;
  }
  return blocks;
}

/**
 * Finds the next occurrence of a tag at or after a position that only moves forward, remembering each tag's last
 * answer: with one kind of tag missing (no `<think>` among thousands of tool calls), searching again from each
 * block would read the rest of the text once per block, quadratic in a response the model wrote.
 */
function nextTagFinder(text: string): (tag: string, from: number) => number {
  const found = new Map<string, number>();
  return (tag, from) => {
    const known = found.get(tag);
    if (known !== undefined && (known === -1 || known >= from)) return known;
    const at = text.indexOf(tag, from);
    found.set(tag, at);
    return at;
  };
}

/** The text without the newlines at its ends: loops, since `/\n+$/` retries from each newline of a run. */
function withoutEdgeNewlines(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text[start] === '\n') start += 1;
  while (end > start && text[end - 1] === '\n') end -= 1;
  return text.slice(start, end);
}

/**
 * A verl dump sample as a conversation: the prompt's and the response's messages, assistant messages cut into
 * blocks, and each tool response attached under the call it answers (in order) instead of standing alone. The
 * prompt's trailing generation prompt (an empty `assistant`) is dropped.
 *
 * @example
 * const turns = parseConversation(sample.input, sample.output);
 * turns.map((turn) => turn.role); // ['system', 'user', 'assistant', 'assistant']
 */
export function parseConversation(input: string, output: string): ChatTurn[] {
  const messages = [
    ...splitMessages(input, 'user').map((message) => ({ ...message, part: 'input' as const })),
    ...splitMessages(output, 'assistant').map((message) => ({ ...message, part: 'output' as const })),
  ].filter((message) => message.text.trim() !== '');
  const turns: ChatTurn[] = [];
  let waiting: Extract<Block, { kind: 'call' }>[] = [];
  for (const message of messages) {
    const responses = toolResponses(message);
    if (responses) {
      const unanswered: string[] = [];
      for (const response of responses) {
        const call = waiting.shift();
        if (call) call.response = response;
        else unanswered.push(response);
      }
      if (unanswered.length === 0) continue;
      turns.push({
        role: 'tool',
        text: message.text,
        part: message.part,
        blocks: unanswered.map((text) => ({ kind: 'text', text })),
      });
      continue;
    }
    const { text } = message;
    const blocks: Block[] = message.role === 'assistant' ? assistantBlocks(text) : [{ kind: 'text', text }];
    waiting = blocks.filter((block): block is Extract<Block, { kind: 'call' }> => block.kind === 'call');
    turns.push({ role: message.role, text, part: message.part, blocks });
  }
  return turns;
}
