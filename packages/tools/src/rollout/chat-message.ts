/** A chat message as the rollout driver keeps it: plain text content, one role of verl's chat turns. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
}
