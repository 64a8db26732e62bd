import { z } from 'zod';
import { integer } from './integer';
import { languageSchema } from './languages';

/**
 * How a dataset's problems are prompted and judged. Every field is optional; `dataset_type` names the
 * evaluation class for a dataset the server has not registered.
 *
 * @example
 * const config = testConfigSchema.parse({ language: 'python', run_timeout: 5 });
 */
export const testConfigSchema = z.object({
  dataset_type: z.string().nullable().default(null),
  language: languageSchema.nullable().default(null),
  locale: z.string().nullable().default(null),
  is_fewshot: z.boolean().nullable().default(null),
  compile_timeout: z.number().nullable().default(null),
  run_timeout: z.number().nullable().default(null),
  /** Python that calls `submit_code_blocks(cbs)` to choose which code blocks of a completion to run. */
  custom_extract_logic: z.string().nullable().default(null),
  provided_data: z
    .union([z.array(z.record(z.string(), z.unknown())), z.record(z.string(), z.unknown())])
    .nullable()
    .default(null),
  extra: z.record(z.string(), z.unknown()).default(() => ({})),
});

/** @example const config: TestConfigInput = { language: 'cpp' }; */
export type TestConfigInput = z.input<typeof testConfigSchema>;

/** @example const timeout = (config satisfies TestConfig).run_timeout ?? 10; */
export type TestConfig = z.output<typeof testConfigSchema>;

/**
 * A problem id in a dataset: SandboxFusion accepts integers and strings.
 *
 * @example
 * problemIdSchema.parse(42);
 */
export const problemIdSchema = z.union([integer(), z.string()]);

/** @example const id: ProblemId = 'HumanEval/0'; */
export type ProblemId = z.output<typeof problemIdSchema>;
