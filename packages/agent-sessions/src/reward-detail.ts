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
});

export type TestOutcome = z.infer<typeof testOutcomeSchema>;

export const rewardDetailSchema = z.array(testOutcomeSchema);
