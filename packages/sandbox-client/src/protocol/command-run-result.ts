import { z } from 'zod';
import { integer } from './integer';

/**
 * How one step (compile or run) ended. `Error` means the sandbox itself failed, not the user's code.
 *
 * @example
 * commandRunStatusSchema.parse('TimeLimitExceeded');
 */
export const commandRunStatusSchema = z.enum(['Finished', 'Error', 'TimeLimitExceeded']);

/** @example const status: CommandRunStatus = 'Finished'; */
export type CommandRunStatus = z.output<typeof commandRunStatusSchema>;

/**
 * The outcome of one step. `return_code` is null when the step timed out; every field but `status` may be null
 * on a real SandboxFusion, which serialises pydantic's `None` defaults.
 *
 * @example
 * const step = commandRunResultSchema.parse({
 *   status: 'Finished', execution_time: 0.01, return_code: 0, stdout: 'hi\n', stderr: '',
 * });
 */
export const commandRunResultSchema = z.object({
  status: commandRunStatusSchema,
  execution_time: z.number().nullable(),
  return_code: integer().nullable(),
  stdout: z.string().nullable(),
  stderr: z.string().nullable(),
});

/** @example const run: CommandRunResult | null = response.run_result; */
export type CommandRunResult = z.output<typeof commandRunResultSchema>;
