import { z } from 'zod';
import { runCodeResponseSchema } from './run-code';
import { problemIdSchema } from './test-config';

/**
 * One test of a submitted completion, with the sandbox run that judged it.
 *
 * @example
 * const passed = evalTestCaseSchema.parse(raw).passed;
 */
export const evalTestCaseSchema = z.object({
  passed: z.boolean(),
  exec_info: runCodeResponseSchema,
  test_info: z.record(z.string(), z.unknown()).nullable().default(null),
});

/**
 * The verdict of `/submit`: `accepted` is true when every test passed.
 *
 * @example
 * const result = evalResultSchema.parse(raw);
 * const reward = result.accepted ? 1 : 0;
 */
export const evalResultSchema = z.object({
  id: problemIdSchema,
  accepted: z.boolean(),
  extracted_code: z.string(),
  full_code: z.string().nullable().default(null),
  test_code: z.string().nullable().default(null),
  tests: z.array(evalTestCaseSchema),
  extracted_type: z.enum(['fenced', 'incomplete_fenced', 'heuristic', 'empty']).nullable().default(null),
  extra: z.record(z.string(), z.unknown()).nullable().default(null),
});

/** @example const accepted = (result satisfies EvalResult).accepted; */
export type EvalResult = z.output<typeof evalResultSchema>;

/** An EvalResult as a caller may write it, e.g. for `/get_metrics`. @example const r: EvalResultInput = raw; */
export type EvalResultInput = z.input<typeof evalResultSchema>;
