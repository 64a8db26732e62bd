import { stemmer as porterStemmer } from 'stemmer';

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
 * How a corpus's words are reduced to terms: `porter` (Porter's stemmer, as pyserini's default analyzer, so
 * `cities` matches `city`) or `none` (the word as written, lowercased). Corpora imported before stemming
 * existed keep `none`, and so their ranking.
 */
export const STEMMERS = ['porter', 'none'] as const;
export type Stemmer = (typeof STEMMERS)[number];

/** What a corpus is imported with unless told otherwise. */
export const DEFAULT_STEMMER: Stemmer = 'porter';

/** Stems of the words seen, kept up to this many: a corpus repeats its vocabulary, and stemming costs. */
const STEM_CACHE_SIZE = 200_000;

/**
 * The words of a text as BM25 sees them, before stemming, repeats included: lowercase runs of letters and
 * digits, without stop words.
 */
export function bm25Words(text: string): string[] {
  const words: string[] = [];
  for (const [word] of text.toLowerCase().matchAll(WORD)) {
    if (word.length <= MAX_TERM_LENGTH && !STOP_WORDS.has(word)) words.push(word);
  }
  return words;
}

/**
 * The terms BM25 ranks a text by: its words, each stemmed by `stemmer`. Documents and queries of a corpus go
 * through the same stemmer, so a query matches what was indexed.
 */
export function bm25Terms(text: string, stemmer: Stemmer = 'none'): string[] {
  const words = bm25Words(text);
  return stemmer === 'none' ? words : words.map((word) => stemWord(word, stemmer));
}

const stems = new Map<string, string>();

/** A word's term under `stemmer`. */
export function stemWord(word: string, stemmer: Stemmer): string {
  if (stemmer === 'none') return word;
  let stem = stems.get(word);
  if (stem === undefined) {
    if (stems.size === STEM_CACHE_SIZE) stems.clear();
    stem = porterStemmer(word);
    stems.set(word, stem);
  }
  return stem;
}
