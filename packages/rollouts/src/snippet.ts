import { type Range, type Segment, segments } from './match-ranges';

/** Characters of context either side of a search match in a result's snippet. */
const CONTEXT = 90;

/**
 * A short excerpt around the first match, cut into marked and plain segments, with an ellipsis where text was
 * left out. Returns null when `ranges` is empty.
 */
export function snippet(text: string, ranges: readonly Range[]): Segment[] | null {
  const first = ranges[0];
  if (!first) return null;
  const start = Math.max(0, first[0] - CONTEXT);
  const end = Math.min(text.length, first[1] + CONTEXT * 2);
  const inside = ranges
    .filter(([from, to]) => from >= start && to <= end)
    .map(([from, to]) => [from - start, to - start] as const);
  const parts = segments(text.slice(start, end).replace(/\s/g, ' '), inside);
  if (start > 0) parts.unshift({ text: '…', match: false });
  if (end < text.length) parts.push({ text: '…', match: false });
  return parts;
}
