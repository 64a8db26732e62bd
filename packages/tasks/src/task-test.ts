import { z } from 'zod';

/**
 * One named test of a task, as stored in `task.tests`. `assert` tests are code run after the solution (or at its
 * `#<INSERT>` marker, as SandboxFusion's AutoEval does): they pass when the program exits 0. `io` tests run the
 * solution with `stdin` and pass when it exits 0 and prints `expectedStdout` (trailing newlines ignored, as
 * verl compares).
 */
export const taskTestSchema = z.discriminatedUnion('kind', [
  z.object({ name: z.string().min(1), kind: z.literal('assert'), code: z.string() }),
  z.object({
    name: z.string().min(1),
    kind: z.literal('io'),
    stdin: z.string(),
    expectedStdout: z.string(),
  }),
]);

export type TaskTest = z.infer<typeof taskTestSchema>;

export const taskTestsSchema = z.array(taskTestSchema);
