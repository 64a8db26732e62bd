/**
 * verl scores only the tail of a solution: the final answer is near the end, and long regexes are slow.
 *
 * @example
 * extractGsm8kSolution(`#### 1 ${'x'.repeat(SOLUTION_CLIP_CHARS)}`); // null: the answer is before the tail
 */
export const SOLUTION_CLIP_CHARS = 300;

/**
 * `strict` needs `#### <number>`; `flexible` takes the last number anywhere in the tail.
 *
 * @example
 * extractGsm8kSolution('it is 72', 'flexible' satisfies Gsm8kMethod); // '72'
 */
export type Gsm8kMethod = 'strict' | 'flexible';

/**
 * verl's `extract_solution`: the answer found in the last 300 characters (counted in code points, as Python
 * does), or null when there is none.
 *
 * @example
 * extractGsm8kSolution('so the total is 1,200 #### 1,200', 'strict'); // '1200'
 */
export function extractGsm8kSolution(solution: string, method: Gsm8kMethod = 'strict'): string | null {
  const chars = Array.from(solution);
  const tail = chars.length > SOLUTION_CLIP_CHARS ? chars.slice(-SOLUTION_CLIP_CHARS).join('') : solution;
  if (method === 'strict') {
    const found = [...tail.matchAll(/#### (-?[0-9.,]+)/g)].map((match) => match[1] ?? '');
    const last = found.at(-1);
    return last === undefined ? null : last.replaceAll(',', '').replaceAll('$', '');
  }
  const numbers = tail.match(/-?[0-9.,]+/g) ?? [];
  // verl skips the bare '' and '.' matches, but falls back to the first match when every one is invalid.
  for (let index = numbers.length - 1; index >= 0; index -= 1) {
    const candidate = numbers[index] ?? '';
    if (candidate !== '' && candidate !== '.') return candidate;
  }
  return numbers[0] ?? null;
}

/**
 * How `computeGsm8kScore` extracts and scores: verl's defaults unless given.
 *
 * @example
 * computeGsm8kScore(solution, '72', { method: 'flexible' } satisfies Gsm8kScoreOptions);
 */
export interface Gsm8kScoreOptions {
  method?: Gsm8kMethod;
  /** Score when an answer is found but wrong. verl's default: 0. */
  formatScore?: number;
  /** Score when the answer equals the ground truth exactly. verl's default: 1. */
  score?: number;
}

/**
 * verl's `gsm8k.compute_score`: exact string equality between the extracted answer and the ground truth, so
 * `220000.0` does not match `220000`. `parsed` is the extracted answer, null when none was found (verl then
 * returns the integer 0, which `Gsm8kTool` prints as `0` rather than `0.0`).
 *
 * @example
 * computeGsm8kScore('#### 72', '72'); // { score: 1, parsed: '72' }
 */
export function computeGsm8kScore(
  solution: string,
  groundTruth: string | null,
  options: Gsm8kScoreOptions = {},
): { score: number; parsed: string | null } {
  const parsed = extractGsm8kSolution(solution, options.method ?? 'strict');
  if (parsed === null) return { score: 0, parsed };
  return { score: parsed === groundTruth ? (options.score ?? 1) : (options.formatScore ?? 0), parsed };
}
