/**
 * What a tool gives back to the model, as verl's `ToolResponse`: text, and images or videos for vision models.
 * The driver sends `text` as the tool message; an empty response becomes an empty tool message.
 *
 * @example
 * const response: ToolResponse = { text: '42\n' };
 */
export interface ToolResponse {
  text?: string;
  image?: unknown[];
  video?: unknown[];
}
