/**
 * Which part of a long tool response verl keeps: the head (`left`), the tail (`right`) or both ends.
 *
 * @example
 * truncateToolResponse(text, 256, 'right' satisfies TruncateSide);
 */
export type TruncateSide = 'left' | 'right' | 'middle';

/**
 * verl's `max_tool_response_length` default, in characters.
 *
 * @example
 * truncateToolResponse(text, DEFAULT_MAX_TOOL_RESPONSE_LENGTH * 4);
 */
export const DEFAULT_MAX_TOOL_RESPONSE_LENGTH = 256;

/**
 * Cuts a tool response the way verl's agent loop does, counting characters as Python does (code points):
 * `left` keeps the head + `...(truncated)`, `right` keeps `(truncated)...` + the tail, `middle` keeps half of
 * each end around `...(truncated)...`. Text no longer than `maxLength` comes back unchanged.
 *
 * @example
 * truncateToolResponse('abcdefghij', 4, 'middle'); // { text: 'ab...(truncated)...ij', truncated: true }
 */
export function truncateToolResponse(
  text: string,
  maxLength: number = DEFAULT_MAX_TOOL_RESPONSE_LENGTH,
  side: TruncateSide = 'middle',
): { text: string; truncated: boolean } {
  if (!Number.isInteger(maxLength) || maxLength < 0) {
    throw new TypeError(`expected maxLength to be a non-negative integer, got ${String(maxLength)}`);
  }
  // UTF-16 length is never below the code point count, so this cheap test avoids splitting short texts.
  if (text.length <= maxLength) return { text, truncated: false };
  const chars = Array.from(text);
  if (chars.length <= maxLength) return { text, truncated: false };
  if (side === 'left')
    return { text: `${chars.slice(0, maxLength).join('')}...(truncated)`, truncated: true };
  if (side === 'right') return { text: `(truncated)...${tail(chars, maxLength)}`, truncated: true };
  const half = Math.floor(maxLength / 2);
  return { text: `${chars.slice(0, half).join('')}...(truncated)...${tail(chars, half)}`, truncated: true };
}

// Python's text[-0:] is the whole text, and verl's middle mode with a length of 1 hits exactly that.
function tail(chars: string[], count: number): string {
  return chars.slice(count === 0 ? 0 : -count).join('');
}
