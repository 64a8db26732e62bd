import { type JsonValue, pythonJsonDumps } from '@fusebox/tools';

/**
 * A tool call as a hermes-format model writes it, `<tool_call>{"name": …, "arguments": {…}}</tool_call>`, with
 * the JSON in Python's style, as verl's dumps show it. `malformed` leaves off the closing brace, the commonest
 * way a model breaks the format when it runs out of patience or tokens.
 */
export function toolCallText(
  name: string,
  args: Record<string, JsonValue>,
  { malformed = false }: { malformed?: boolean } = {},
): string {
  const json = pythonJsonDumps({ name, arguments: args });
  return `<tool_call>\n${malformed ? json.slice(0, -1) : json}\n</tool_call>`;
}
