/**
 * The longest word kept in the search index. Longer runs are base64 blobs, hashes of hashes or minified data:
 * nobody types them, and they would bloat the index.
 */
export const MAX_TERM_LENGTH = 64;

/**
 * Whether a UTF-16 code unit belongs to a word: ASCII letters and digits, and anything from Latin-1 letters up
 * except the Unicode punctuation blocks, so accented words and CJK runs stay whole. `_`, `.`, `-` and the like
 * split words, so `total_pay` is found by `total` and by `pay` (and exactly, as a phrase).
 */
function isWordUnit(code: number): boolean {
  if (code < 0x80)
    return (code >= 48 && code <= 57) || (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
  if (code < 0xc0) return false;
  if (code >= 0x2000 && code <= 0x2bff) return false; // general punctuation, arrows, symbols, box drawing
  if (code >= 0x3000 && code <= 0x303f) return false; // CJK punctuation
  if (code >= 0xff00 && code <= 0xff0f) return false; // fullwidth punctuation
  return code !== 0xfeff;
}

const BACKSLASH = 92;
const U = 117;
/** Letters that follow a backslash in a JSON escape: \n, \t, \r, \b, \f (and \u, \", \\, \/). */
const ESCAPED = new Set([110, 116, 114, 98, 102]);

/**
 * How many code units a JSON escape at `index` spans (0 if there is none). Tool-call arguments sit in the text as
 * JSON, so code reads `x = 1\nprint(x)`: without this, `nprint` would be a word and `print` would not match.
 */
function escapeLength(text: string, index: number): number {
  if (text.charCodeAt(index) !== BACKSLASH) return 0;
  const next = text.charCodeAt(index + 1);
  if (ESCAPED.has(next)) return 2;
  if (next === U && /^[0-9a-fA-F]{4}$/.test(text.slice(index + 2, index + 6))) return 6;
  return 0;
}

/**
 * Calls `visit(start, end)` for every word of `text`, in order. One pass over the code units, no regex: it runs
 * over every byte of an import (a gigabyte for 100k samples).
 */
export function forEachWord(text: string, visit: (start: number, end: number) => void): void {
  let start = -1;
  for (let index = 0; index < text.length; index++) {
    if (isWordUnit(text.charCodeAt(index))) {
      if (start < 0) start = index;
      continue;
    }
    if (start >= 0) {
      visit(start, index);
      start = -1;
    }
    index += Math.max(0, escapeLength(text, index) - 1);
  }
  if (start >= 0) visit(start, text.length);
}

/** The lowercase words of `text`, in order, repeats included. */
export function words(text: string): string[] {
  const lower = text.toLowerCase();
  const found: string[] = [];
  forEachWord(lower, (start, end) => found.push(lower.slice(start, end)));
  return found;
}

/**
 * The distinct lowercase words of the given texts that the index keeps: what a sample is searchable by.
 *
 * This is the importer's hot loop (every byte of a dump passes through it), so it lowercases ASCII as it goes
 * and recognises repeats by two running hashes of each word, cutting out a string only for a word it has not
 * seen in this sample. Two hashes make a false "seen" (which would drop a term) about one in 2^53.
 *
 * @example
 * searchTerms(['print(total_pay)']); // ['print', 'total', 'pay']
 */
export function searchTerms(texts: readonly string[]): string[] {
  const seen = new Set<number>();
  const terms: string[] = [];
  for (const text of texts) {
    let start = -1;
    let h1 = 0;
    let h2 = 0;
    for (let index = 0; index <= text.length; index++) {
      const code = index < text.length ? text.charCodeAt(index) : 32;
      if (isWordUnit(code)) {
        const lower = code >= 65 && code <= 90 ? code | 32 : code;
        if (start < 0) {
          start = index;
          h1 = 0x811c9dc5;
          h2 = 0;
        }
        h1 = Math.imul(h1 ^ lower, 0x01000193);
        h2 = (Math.imul(h2, 31) + lower) | 0;
        continue;
      }
      if (start >= 0) {
        if (index - start <= MAX_TERM_LENGTH) {
          const key = (h1 >>> 0) * 0x200000 + (h2 & 0x1fffff);
          if (!seen.has(key)) {
            seen.add(key);
            terms.push(text.slice(start, index).toLowerCase());
          }
        }
        start = -1;
      }
      if (code === BACKSLASH) index += Math.max(0, escapeLength(text, index) - 1);
    }
  }
  return terms;
}
