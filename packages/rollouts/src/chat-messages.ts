/** The roles of a chat template, as a decoded dump spells them at the start of each message. */
export const ROLES = ['system', 'user', 'assistant', 'tool'] as const;
export type Role = (typeof ROLES)[number];

export interface ChatMessage {
  role: Role;
  text: string;
}

const ROLE_LINE = /(?:^|\n)(system|user|assistant|tool)\n/g;
const TOOL_RESPONSE = /<tool_response>\n?([\s\S]*?)\n?<\/tool_response>/g;
/** ASCII whitespace only, as the migration that counted older rows tests it in SQL (`tool-response-signals.ts`). */
const BLANK = /^[ \t\n\r\f\v]*$/;

/**
 * Splits decoded chat text into messages. A dump's text is the chat template with its special tokens
 * skipped, so each message reads `role\ncontent` and ends with the newline that followed `<|im_end|>`. Text
 * before the first role line belongs to `leadingRole` (a response that starts mid-message).
 */
export function splitMessages(text: string, leadingRole: Role): ChatMessage[] {
  const messages: ChatMessage[] = [];
  let role: Role = leadingRole;
  let start = 0;
  for (const match of text.matchAll(ROLE_LINE)) {
    messages.push({ role, text: text.slice(start, match.index) });
    role = match[1] as Role;
    start = match.index + match[0].length;
  }
  messages.push({ role, text: text.slice(start) });
  return messages.filter((message, index) => index > 0 || message.text !== '');
}

/**
 * The tool responses a message carries, or null when it is not the tools' message: a `tool` message is one
 * response; a `user` message made only of `<tool_response>` blocks (Qwen's template) is one per block.
 */
export function toolResponses(message: ChatMessage): string[] | null {
  if (message.role === 'tool') return [message.text];
  if (message.role !== 'user') return null;
  const responses = [...message.text.matchAll(TOOL_RESPONSE)].map((match) => match[1] ?? '');
  return responses.length > 0 && BLANK.test(message.text.replace(TOOL_RESPONSE, '')) ? responses : null;
}
