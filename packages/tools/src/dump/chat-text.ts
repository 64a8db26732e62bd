import type { ChatMessage } from '../rollout/chat-message';
import type { Trajectory } from '../rollout/episode';
import { systemPromptWithTools } from '../tools-system-prompt';

/**
 * A trajectory's prompt and response as verl's dumps hold them: the chat template's text decoded with special
 * tokens skipped, so each message reads `role\ncontent`. The prompt carries the `# Tools` block in its system
 * message (Qwen's default system prompt when there was none), each message ends with the newline that follows
 * `<|im_end|>`, and it ends with the generation prompt `assistant\n`. The response joins its messages with that
 * newline and has none after the last one.
 *
 * @example
 * const { input, output } = trajectoryChatText(trajectory);
 * // input: 'system\nYou are a math expert…\n\n# Tools\n…user\n…\nassistant\n'
 */
export function trajectoryChatText(trajectory: Trajectory): { input: string; output: string } {
  const prompt = trajectory.messages.slice(0, trajectory.promptMessages);
  const response = trajectory.messages.slice(trajectory.promptMessages);
  const [first, ...rest] = prompt;
  const hasSystem = first?.role === 'system';
  const system = systemPromptWithTools(hasSystem ? first.content : undefined, trajectory.tools);
  const withTools: ChatMessage[] =
    system === undefined ? prompt : [{ role: 'system', content: system }, ...(hasSystem ? rest : prompt)];
  return {
    input: `${withTools.map((message) => `${line(message)}\n`).join('')}assistant\n`,
    output: response.map(line).join('\n'),
  };
}

function line(message: ChatMessage): string {
  return `${message.role}\n${message.content}`;
}
