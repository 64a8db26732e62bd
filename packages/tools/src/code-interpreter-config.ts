import { z } from 'zod';
import type { RunTextCompat } from './describe-run';

/**
 * How `calcReward` scores an instance from its runs: `last_success` (default) is 1 when the last run succeeded,
 * `any_success` when any did, `success_rate` is the share that did, `none` is always 0. (verl returns its
 * list of outputs, which is always empty.)
 *
 * @example
 * new CodeInterpreterTool({ sandbox_fusion_url: url, reward: 'success_rate' satisfies CodeRewardMode });
 */
export type CodeRewardMode = 'last_success' | 'any_success' | 'success_rate' | 'none';

const positiveInt = z.number().int().positive();

/**
 * The `config:` block of a code interpreter entry: verl's keys with verl's defaults, plus Fusebox's own
 * (`compat`, `reward`, `database_url`, `rate_limit_key`). Unknown keys, such as verl's `type`, are ignored as
 * verl ignores them.
 *
 * @example
 * codeInterpreterConfigSchema.parse({ sandbox_fusion_url: 'http://127.0.0.1:8080/run_code' }).rate_limit; // 10
 */
export const codeInterpreterConfigSchema = z.object({
  /** The full URL of `/run_code`, as verl wants it: Fusebox's API or any SandboxFusion. */
  sandbox_fusion_url: z.url({
    protocol: /^https?$/,
    error: (issue) =>
      issue.input === undefined ? 'missing required key' : 'expected the http(s) URL of /run_code',
  }),
  /** Executions in flight at once from this tool object (verl's per-worker thread pool). */
  num_workers: positiveInt.default(10),
  /** Executions in flight at once across every tool using the same limiter. */
  rate_limit: positiveInt.default(10),
  /** Seconds, for both compile and run, unless the model passes `timeout`. */
  default_timeout: z.number().positive().default(30),
  default_language: z.string().min(1).default('python'),
  /** With false there is no global limit (verl crashes on its missing limiter then). */
  enable_global_rate_limit: z.boolean().default(true),
  /** Sent as `memory_limit_MB`; -1 for none. */
  memory_limit_mb: z.number().int().default(1024),
  compat: z.enum(['fusebox', 'verl'] satisfies RunTextCompat[]).default('fusebox'),
  reward: z
    .enum(['last_success', 'any_success', 'success_rate', 'none'] satisfies CodeRewardMode[])
    .default('last_success'),
  /** A Postgres URL: the global limit then holds across every process on that database (cluster-wide). */
  database_url: z.string().min(1).optional(),
  /** The limiter key. Keep it apart from the API's own `/run_code` limiter key, or the two would share slots. */
  rate_limit_key: z.string().min(1).default('tools.code_interpreter'),
});

/**
 * A validated code interpreter config.
 *
 * @example
 * const { num_workers, rate_limit }: CodeInterpreterConfig = tool.settings;
 */
export type CodeInterpreterConfig = z.output<typeof codeInterpreterConfigSchema>;
