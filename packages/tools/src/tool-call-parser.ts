import { taggedSpans } from '@fusebox/input/tagged-spans';

/**
 * The tool-call formats verl calls `hermes` and sglang calls `qwen25`: both are `<tool_call>{json}</tool_call>`.
 *
 * @example
 * parseToolCalls(text, 'qwen25' satisfies ToolCallFormat);
 */
export type ToolCallFormat = 'hermes' | 'qwen25';

/**
 * A tool call as the model wrote it, either usable or with what is wrong with it.
 *
 * @example
 * for (const call of parseToolCalls(text).calls) if (!call.ok) console.warn(call.problem);
 */
export type ParsedToolCall =
  | { ok: true; name: string; arguments: Record<string, unknown>; raw: string }
  | { ok: false; problem: string; raw: string };

const START = '<tool_call>';
const END = '</tool_call>';

/**
 * Finds every `<tool_call>{"name": …, "arguments": {…}}</tool_call>` in an assistant message, in order, as verl's
 * hermes parser does. Where verl logs and drops a call it cannot use, this returns it with a `problem` the
 * driver reports back to the model: malformed JSON, a missing name, arguments that are not an object, or a
 * `<tool_call>` that is never closed. A call without `arguments` gets `{}`. `content` is the text without calls.
 *
 * @example
 * const { calls } = parseToolCalls('<tool_call>\n{"name": "code_interpreter", "arguments": {"code": "print(1)"}}\n</tool_call>');
 * // calls[0] → { ok: true, name: 'code_interpreter', arguments: { code: 'print(1)' }, raw: … }
 */
export function parseToolCalls(
  text: string,
  _format: ToolCallFormat = 'hermes',
): { content: string; calls: ParsedToolCall[] } {
  if (!text.includes(START)) return { content: text, calls: [] };
  const spans = taggedSpans(text, START, END);
  const calls: ParsedToolCall[] = spans.map((span) => parseOne(span.inner));
  const unclosed = text.indexOf(START, spans.at(-1)?.end ?? 0);
  if (unclosed !== -1) {
    calls.push({
      ok: false,
      problem: 'a <tool_call> was opened but never closed with </tool_call>',
      raw: text.slice(unclosed),
    });
  }
  const content = spans.map((span, index) => text.slice(spans[index - 1]?.end ?? 0, span.start)).join('');
  return { content: content + text.slice(spans.at(-1)?.end ?? 0), calls };
}

function parseOne(raw: string): ParsedToolCall {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return { ok: false, problem: `the tool call is not valid JSON (${(error as Error).message})`, raw };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, problem: 'the tool call must be a JSON object with "name" and "arguments"', raw };
  }
  const { name, arguments: args = {} } = value as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string' || name === '') {
    return { ok: false, problem: 'the tool call has no "name" string', raw };
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return { ok: false, problem: `the "arguments" of ${name} must be a JSON object`, raw };
  }
  return { ok: true, name, arguments: args as Record<string, unknown>, raw };
}
