import { taggedSpans } from '@fusebox/input/tagged-spans';

/** The roles of a chat template, as a decoded dump spells them at the start of each message. */
export type Role = 'system' | 'user' | 'assistant' | 'tool';

export interface ChatMessage {
  role: Role;
  text: string;
}

/**
 * Where a message starts: a newline followed by a line that is a role's name alone. The newline ends the message
 * before; each such line starts a message, even right after another (an empty message then). Postgres splits
 * on the same expression (the `tool_errors` migration), and V8 scans for its plain newline about three times as
 * fast as for an `(?:^|\n)` alternative.
 */
const MESSAGE_START = /\n(?=(?:system|user|assistant|tool)\n)/;
const ROLE_LINE = /^(system|user|assistant|tool)\n/;
/** ASCII whitespace only, as the migration that counted older rows tests it in SQL (`tool-response-signals.ts`). */
const BLANK = /^[ \t\n\r\f\v]*$/;

/**
 * Splits decoded chat text into messages. A dump's text is the chat template with its special tokens
 * skipped, so each message reads `role\ncontent` and ends with the newline that followed `<|im_end|>`. Text
 * before the first role line belongs to `leadingRole` (a response that starts mid-message).
 */
export function splitMessages(text: string, leadingRole: Role): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (const piece of text.split(MESSAGE_START)) {
    const roleLine = ROLE_LINE.exec(piece);
    // Only the first piece can lack a role line: it is the text before the first one.
    if (roleLine) messages.push({ role: roleLine[1] as Role, text: piece.slice(roleLine[0].length) });
    else if (piece !== '') messages.push({ role: leadingRole, text: piece });
  }
  return messages;
}

/**
 * The tool responses a message carries, or null when it is not the tools' message: a `tool` message is one
 * response; a `user` message made only of `<tool_response>` blocks (Qwen's template) is one per block.
 */
export function toolResponses(message: ChatMessage): string[] | null {
  if (message.role === 'tool') return [message.text];
  if (message.role !== 'user') return null;
  const blocks = taggedSpans(message.text, '<tool_response>', '</tool_response>');
  if (blocks.length === 0) return null;
  const between = blocks.map((block, index) => message.text.slice(blocks[index - 1]?.end ?? 0, block.start));
  if (![...between, message.text.slice(blocks.at(-1)!.end)].every((text) => BLANK.test(text))) return null;
  return blocks.map((block) => blockContent(block.inner));
}

/** A block's text without the newline the template writes after its opening tag and before its closing one. */
function blockContent(inside: string): string {
  const start = inside.startsWith('\n') ? 1 : 0;
  const end = inside.length > start && inside.endsWith('\n') ? inside.length - 1 : inside.length;
  return inside.slice(start, end);
}
