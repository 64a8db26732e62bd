/**
 * Lucene's English stop words (EnglishAnalyzer), which pyserini's BM25 index, and so Search-R1's BM25 retriever,
 * leaves out of documents and queries alike.
 */
const STOP_WORDS = new Set([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'but',
  'by',
  'for',
  'if',
  'in',
  'into',
  'is',
  'it',
  'no',
  'not',
  'of',
  'on',
  'or',
  'such',
  'that',
  'the',
  'their',
  'then',
  'there',
  'these',
  'they',
  'this',
  'to',
  'was',
  'will',
  'with',
]);

/** Longer runs are hashes, base64 or URLs run together: nobody searches for them, and they bloat the index. */
export const MAX_TERM_LENGTH = 64;

const WORD = /[\p{L}\p{N}]+/gu;

/**
 * The terms BM25 ranks a text by, repeats included: lowercase runs of letters and digits, without stop words.
 * Documents and queries go through the same function, so a query matches what was indexed. Unlike pyserini
 * there is no stemming: `cities` does not match `city`.
 */
export function bm25Terms(text: string): string[] {
  const terms: string[] = [];
  for (const [word] of text.toLowerCase().matchAll(WORD)) {
    if (word.length <= MAX_TERM_LENGTH && !STOP_WORDS.has(word)) terms.push(word);
  }
  return terms;
}
