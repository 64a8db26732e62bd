/**
 * What the scripted model does in an episode: answer right, answer wrong, write a tool call that is not JSON,
 * run code that never ends, or run code that crashes. The last three recover on the next turn, as models do.
 */
export const DEMO_CASES = ['correct', 'wrong', 'malformed', 'timeout', 'crash'] as const;
export type DemoCase = (typeof DEMO_CASES)[number];

/** The cases other than `correct`, weighted: wrong answers are the commonest failure. */
const FAILURES: readonly DemoCase[] = ['wrong', 'wrong', 'malformed', 'timeout', 'crash'];

/**
 * The case of episode `index` of a task family in `step` (1-based). The first episodes of every step play each
 * case once, so even a tiny run shows every path; the rest follow a deterministic mix whose share of correct
 * answers grows with the step, so the dashboard's score-over-steps chart rises as it does while a policy learns.
 */
export function caseFor(index: number, step: number): DemoCase {
  const first = DEMO_CASES[index];
  if (first) return first;
  const correct = Math.min(0.85, 0.4 + 0.15 * (step - 1));
  // Knuth's multiplicative hash spreads consecutive indices evenly over [0, 1).
  const draw = (Math.imul(index + 1, 2654435761) ^ Math.imul(step, 40503)) >>> 0;
  const r = draw / 2 ** 32;
  if (r < correct) return 'correct';
  const slot = Math.floor(((r - correct) / (1 - correct)) * FAILURES.length);
  return FAILURES[Math.min(slot, FAILURES.length - 1)] ?? 'wrong';
}
