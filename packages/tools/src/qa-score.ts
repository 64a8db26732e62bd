import { taggedSpans } from '@fusebox/input/tagged-spans';

/** ASCII punctuation, Python's `string.punctuation`, which SQuAD's normalisation removes. */
const PUNCTUATION = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');

/**
 * Articles as whole words. Python's `\b` sees Unicode letters and digits as word characters and JavaScript's
 * does not, so the boundaries are spelled out: the `a` of `théa` is not a word in either.
 */
const ARTICLE = /(?<![\p{L}\p{N}_])(?:a|an|the)(?![\p{L}\p{N}_])/gu;

/** What Python's `str.split()` and `strip()` take as whitespace: JavaScript's `\s` without U+FEFF, plus U+001C–U+001F and U+0085. */
const PYTHON_SPACE =
  '[\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const PYTHON_WHITESPACE = new RegExp(`${PYTHON_SPACE}+`, 'u');
const IS_PYTHON_SPACE = new RegExp(`^${PYTHON_SPACE}$`, 'u');

/** The words of `text` as Python's `text.split()` gives them. */
function pythonSplit(text: string): string[] {
  return text.split(PYTHON_WHITESPACE).filter((word) => word !== '');
}

/**
 * SQuAD's answer normalisation, as verl's `search_r1_like_qa_em.normalize_answer` and HotpotQA's evaluation
 * apply it: lowercase, drop ASCII punctuation, drop the articles a/an/the, collapse whitespace.
 *
 * @example
 * normalizeAnswer('The  Eiffel-Tower!'); // 'eiffeltower'
 */
export function normalizeAnswer(text: string): string {
  const lower = text.toLowerCase();
  let kept = '';
  for (const char of lower) if (!PUNCTUATION.has(char)) kept += char;
  return pythonSplit(kept.replace(ARTICLE, ' ')).join(' ');
}

/**
 * 1 when the prediction equals a golden answer after normalisation, else 0 (verl's `em_check`).
 *
 * @example
 * exactMatch('the Beatles', ['Beatles', 'The Fab Four']); // 1
 */
export function exactMatch(prediction: string, golden: string | readonly string[]): 0 | 1 {
  const normalized = normalizeAnswer(prediction);
  return goldenList(golden).some((answer) => normalizeAnswer(answer) === normalized) ? 1 : 0;
}

/**
 * 1 when a golden answer, normalised, occurs within the normalised prediction, else 0 (verl's `subem_check`).
 *
 * @example
 * subExactMatch('it was Paris, France', 'Paris'); // 1
 */
export function subExactMatch(prediction: string, golden: string | readonly string[]): 0 | 1 {
  const normalized = normalizeAnswer(prediction);
  return goldenList(golden).some((answer) => normalized.includes(normalizeAnswer(answer))) ? 1 : 0;
}

/**
 * 1 when every word of a golden answer is among the prediction's words, in any order, else 0: R1-Searcher's
 * `cover_exact_match_score_1` (its evaluation's and reward server's "cover EM"). Its normalisation is SQuAD's
 * after `_` becomes a space, and a prediction or answer of exactly `True`/`False` reads as `yes`/`no`.
 *
 * @example
 * coverExactMatch('Obama, Barack', 'Barack Obama'); // 1
 */
export function coverExactMatch(prediction: string, golden: string | readonly string[]): 0 | 1 {
  const words = new Set(coverWords(prediction));
  return goldenList(golden).some((answer) => coverWords(answer).every((word) => words.has(word))) ? 1 : 0;
}

/** R1-Searcher's `normalize_answer(bool_mapping(text)).split(" ")`. */
function coverWords(text: string): string[] {
  const mapped = text === 'True' ? 'yes' : text === 'False' ? 'no' : text;
  return normalizeAnswer(mapped.replaceAll('_', ' ')).split(' ');
}

/**
 * Token F1 between the prediction and the best golden answer, as HotpotQA's evaluation computes it: over
 * normalised words counted with repeats; a yes/no/noanswer on either side scores only if both are the same.
 *
 * @example
 * tokenF1('Barack Obama', ['Obama']); // 0.666…
 */
export function tokenF1(prediction: string, golden: string | readonly string[]): number {
  return Math.max(0, ...goldenList(golden).map((answer) => f1Against(prediction, answer)));
}

const SPECIAL_ANSWERS = new Set(['yes', 'no', 'noanswer']);

function f1Against(prediction: string, answer: string): number {
  const predicted = normalizeAnswer(prediction);
  const expected = normalizeAnswer(answer);
  if ((SPECIAL_ANSWERS.has(predicted) || SPECIAL_ANSWERS.has(expected)) && predicted !== expected) return 0;
  const predictedWords = pythonSplit(predicted);
  const expectedWords = pythonSplit(expected);
  const remaining = new Map<string, number>();
  for (const word of expectedWords) remaining.set(word, (remaining.get(word) ?? 0) + 1);
  let common = 0;
  for (const word of predictedWords) {
    const left = remaining.get(word) ?? 0;
    if (left > 0) {
      common += 1;
      remaining.set(word, left - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / predictedWords.length;
  const recall = common / expectedWords.length;
  return (2 * precision * recall) / (precision + recall);
}

function goldenList(golden: string | readonly string[]): readonly string[] {
  return typeof golden === 'string' ? [golden] : golden;
}

/**
 * The final answer of a response: the last `<answer>…</answer>` (verl's `extract_solution`), trimmed of
 * whitespace as Python's `strip()` does; null when there is none.
 *
 * @example
 * extractAnswerTag('<answer>x</answer> then <answer> Paris </answer>'); // 'Paris'
 */
export function extractAnswerTag(response: string): string | null {
  const last = taggedSpans(response, '<answer>', '</answer>').at(-1)?.inner;
  return last === undefined ? null : pythonStrip(last);
}

/** Python's `str.strip()`: whitespace off both ends, Unicode spaces included. */
export function pythonStrip(text: string): string {
  // Loops from both ends: `\s+$` retries from each space of an inner run, quadratic in a long one.
  let start = 0;
  let end = text.length;
  while (start < end && IS_PYTHON_SPACE.test(text[start]!)) start += 1;
  while (end > start && IS_PYTHON_SPACE.test(text[end - 1]!)) end -= 1;
  return text.slice(start, end);
}

/** verl's scoring rules for QA answers: exact match, or golden answer contained in the prediction. */
export type QaMatch = 'em' | 'subem';

/**
 * Scores a response as verl's `search_r1_like_qa_em.compute_score` (`em`) and `compute_score_subem` (`subem`) do:
 * 0 without an `<answer>` tag, `score` when its answer matches, else `formatScore`. Under `em`, a response with
 * more than 10 opening or closing answer tags gets a quarter of `score` (against answers spammed in the hope
 * one matches).
 *
 * @example
 * computeQaScore('<answer>Paris</answer>', ['Paris']); // 1
 */
export function computeQaScore(
  response: string,
  golden: string | readonly string[],
  options: { match?: QaMatch; formatScore?: number; score?: number } = {},
): number {
  const { match = 'em', formatScore = 0, score = 1 } = options;
  const answer = extractAnswerTag(response);
  if (answer === null) return 0;
  if (match === 'subem') return subExactMatch(answer, golden) ? score : formatScore;
  if (!exactMatch(answer, golden)) return formatScore;
  const tooManyTags = count(response, '<answer>') > 10 || count(response, '</answer>') > 10;
  return tooManyTags ? score / 4 : score;
}

function count(text: string, tag: string): number {
  return text.split(tag).length - 1;
}
