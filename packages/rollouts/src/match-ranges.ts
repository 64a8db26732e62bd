import { forEachWord } from './search-terms';
import type { SearchQuery } from './search-query';

/** A half-open [start, end) range of a text that matched a search. */
export type Range = readonly [start: number, end: number];

/** A piece of text, marked when it matched the search; what the dashboard renders with `<mark>`. */
export interface Segment {
  text: string;
  match: boolean;
}

/** More matches than anyone scrolls through; the cap keeps a pathological query over 200 KB cheap. */
const MAX_RANGES = 5_000;

/**
 * Where `query` matches `text`: every word that begins with one of its terms and every occurrence of its phrases,
 * ignoring case, sorted and merged. The same rules as the server's search, so what is highlighted is what made
 * the sample match.
 *
 * @example
 * matchRanges('Print(total)', { terms: ['print'], phrases: [] }); // [[0, 5]]
 */
export function matchRanges(text: string, query: SearchQuery): Range[] {
  if (query.terms.length === 0 && query.phrases.length === 0) return [];
  const lower = text.toLowerCase();
  const ranges: [number, number][] = [];
  forEachWord(lower, (start, end) => {
    if (ranges.length >= MAX_RANGES) return;
    const word = lower.slice(start, end);
    if (query.terms.some((term) => word.startsWith(term))) ranges.push([start, end]);
  });
  for (const phrase of query.phrases) {
    for (
      let at = lower.indexOf(phrase);
      at >= 0 && ranges.length < MAX_RANGES;
      at = lower.indexOf(phrase, at + 1)
    )
      ranges.push([at, at + phrase.length]);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const range of ranges) {
    const last = merged.at(-1);
    if (last && range[0] <= last[1]) last[1] = Math.max(last[1], range[1]);
    else merged.push([range[0], range[1]]);
  }
  return merged;
}

/** Cuts `text` into plain and matched segments along `ranges` (sorted, non-overlapping). */
export function segments(text: string, ranges: readonly Range[]): Segment[] {
  const result: Segment[] = [];
  let at = 0;
  for (const [start, end] of ranges) {
    if (start > at) result.push({ text: text.slice(at, start), match: false });
    result.push({ text: text.slice(start, end), match: true });
    at = end;
  }
  if (at < text.length) result.push({ text: text.slice(at), match: false });
  return result;
}
