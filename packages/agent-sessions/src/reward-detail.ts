import { z } from 'zod';

/** One test's outcome in a reward run, as `session.reward_detail` stores it. */
export const testOutcomeSchema = z.object({
  name: z.string(),
  group: z.enum(['f2p', 'p2p']),
  passed: z.boolean(),
  /** What happened, in describeRun's categories: success, wrong_answer, runtime_error, timeout, … */
  status: z.string(),
  /** The end of the run's output, to see why a test failed. */
  detail: z.string(),
  /**
   * False when the verdict came from the model's own process (an assert test no trusted path judges: it exited
   * 0 and printed its completion marker, which the model's code can forge; docs/sessions.md). Absent when the
   * host or the trusted runner decided it, and in details stored before this field.
   */
  trusted: z.literal(false).optional(),
  /** A search session's score in parts (search-session.ts); absent for code tests and older search rewards. */
  search: z
    .object({
      /** The final answer scored, and the action that gave it; null when no action gave one. */
      answer: z.string().nullable(),
      answerAction: z.int().nullable(),
      golden: z.array(z.string()),
      rule: z.string(),
      /** The answer's score by the rule, before the R1-Searcher terms. */
      answerScore: z.number(),
      /** The task's R1-Searcher terms as set, and what each earned here (the penalty as the amount taken off). */
      terms: z.object({ retrieval: z.number(), format: z.number(), format_penalty: z.number() }),
      earned: z.object({ retrieval: z.number(), format: z.number(), formatPenalty: z.number() }),
    })
    .optional(),
});

export type TestOutcome = z.infer<typeof testOutcomeSchema>;

export const rewardDetailSchema = z.array(testOutcomeSchema);
