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

/** Per ASCII code: its lowercase if it belongs to a word, else 0. The hot loop reads this instead of branching. */
const ASCII_WORD_LOWER = Uint8Array.from({ length: 128 }, (_, code) =>
  isWordUnit(code) ? String.fromCharCode(code).toLowerCase().charCodeAt(0) : 0,
);

/**
 * Calls `visit(start, end, h1, h2)` for every word of `text`, in order, with two 32-bit hashes of its lowercase
 * form: what the importer's word ids are keyed by (queries and highlighting ignore them).
 *
 * This is the importer's hot loop (every byte of a dump passes through it): one pass over the code units, no
 * regex, lowercasing ASCII and hashing as it scans, so a word becomes a string only when its hashes are new to
 * the caller.
 */
export function forEachWord(
  text: string,
  visit: (start: number, end: number, h1: number, h2: number) => void,
): void {
  let start = -1;
  let h1 = 0;
  let h2 = 0;
  const length = text.length;
  for (let index = 0; index < length; index++) {
    const code = text.charCodeAt(index);
    const lower = code < 128 ? ASCII_WORD_LOWER[code]! : isWordUnit(code) ? code : 0;
    if (lower !== 0) {
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
      visit(start, index, h1, h2);
      start = -1;
    }
    if (code === BACKSLASH) index += Math.max(0, escapeLength(text, index) - 1);
  }
  if (start >= 0) visit(start, length, h1, h2);
}

/** The lowercase words of `text`, in order, repeats included. */
export function words(text: string): string[] {
  const lower = text.toLowerCase();
  const found: string[] = [];
  forEachWord(lower, (start, end) => found.push(lower.slice(start, end)));
  return found;
}
