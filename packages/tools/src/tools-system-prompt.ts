import type { BaseTool } from './base-tool';
import { type ToolSchema, toolSchemaJson } from './tool-schema';

/**
 * The system prompt Qwen2.5's chat template uses when the conversation has none but tools are given.
 *
 * @example
 * systemPromptWithTools(undefined, tools)?.startsWith(QWEN_DEFAULT_SYSTEM_PROMPT); // true
 */
export const QWEN_DEFAULT_SYSTEM_PROMPT =
  'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.';

const HEADER =
  '# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
  'You are provided with function signatures within <tools></tools> XML tags:\n<tools>';
const FOOTER =
  '\n</tools>\n\nFor each function call, return a json object with function name and arguments within ' +
  '<tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>';

/**
 * The `# Tools` block that Qwen2.5/hermes chat templates append to the system prompt, byte for byte as in
 * verl's rollout dumps: one schema per line in Python's JSON style, then the `<tool_call>` instructions.
 *
 * @example
 * renderToolsSystemPrompt([new Gsm8kTool()]).startsWith('# Tools\n\nYou may call one or more functions'); // true
 */
export function renderToolsSystemPrompt(tools: readonly (BaseTool | ToolSchema)[]): string {
  const lines = tools.map((tool) => `\n${toolSchemaJson('schema' in tool ? tool.schema : tool)}`);
  return `${HEADER}${lines.join('')}${FOOTER}`;
}

/**
 * The whole system message a Qwen2.5 template renders: the given system prompt (or Qwen's default), a blank
 * line, then the `# Tools` block. With no tools, the system prompt unchanged.
 *
 * @example
 * systemPromptWithTools('You are a math expert.', [tool]); // 'You are a math expert.\n\n# Tools\n\n…'
 */
export function systemPromptWithTools(
  system: string | undefined,
  tools: readonly (BaseTool | ToolSchema)[],
): string | undefined {
  if (tools.length === 0) return system;
  return `${system ?? QWEN_DEFAULT_SYSTEM_PROMPT}\n\n${renderToolsSystemPrompt(tools)}`;
}
