/**
 * Counts tokens for the episode's token budget. Plug in the policy's real tokenizer for exact budgets.
 *
 * @example
 * const words: Tokenizer = { count: (text) => text.split(/\s+/).length };
 */
export interface Tokenizer {
  count(text: string): number;
}

/**
 * The default when no tokenizer is given: one token per 4 UTF-8 bytes, rounded up. BPE tokenizers of the Qwen and
 * Llama families average 3.5–4.5 bytes per token on English prose and code, so budgets hold within about 15%
 * there; they undercount on CJK text and on digit-heavy output (numbers split into single digits).
 * Completions that report `completionTokens` are counted by the engine instead.
 *
 * @example
 * approximateTokenizer.count('print(1)'); // 2
 */
export const approximateTokenizer: Tokenizer = {
  count: (text) => Math.ceil(Buffer.byteLength(text, 'utf8') / 4),
};
