/**
 * A chat message as the rollout driver keeps it: plain text content, one role of verl's chat turns.
 *
 * @example
 * const prompt: ChatMessage[] = [{ role: 'user', content: 'What is 6 * 7?' }];
 */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
}
