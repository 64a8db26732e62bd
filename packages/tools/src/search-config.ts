import { z } from 'zod';

const positiveInt = z.number().int().positive();

/**
 * The `config:` block of a search tool entry: verl's `SearchTool` keys with verl's defaults, plus Fusebox's own
 * (`max_retries`, `database_url`, `rate_limit_key`). Unknown keys, such as verl's `type`, are ignored as verl
 * ignores them.
 *
 * @example
 * searchConfigSchema.parse({ retrieval_service_url: 'http://127.0.0.1:8080/retrieve' }).topk; // 3
 */
export const searchConfigSchema = z.object({
  /** The full URL of Search-R1's `/retrieve`: Fusebox's (`…/retrieve` or `…/retrieve/CORPUS`) or Search-R1's own. */
  retrieval_service_url: z.url({
    protocol: /^https?$/,
    error: (issue) =>
      issue.input === undefined ? 'missing required key' : 'expected the http(s) URL of /retrieve',
  }),
  /** Passages per query. */
  topk: positiveInt.default(3),
  /** Searches in flight at once from this tool object (verl's per-worker pool). */
  num_workers: positiveInt.default(120),
  /** Searches in flight at once across every tool using the same limiter. */
  rate_limit: positiveInt.default(120),
  /** Seconds one HTTP attempt may take. */
  default_timeout: z.number().positive().default(30),
  /** With false there is no global limit. */
  enable_global_rate_limit: z.boolean().default(true),
  /**
   * Attempts after the first when the service is down, overloaded (429, 5xx) or slow, waiting 1 s, 2 s, … in
   * between (or the Retry-After it asks for), as verl's `MAX_RETRIES`.
   */
  max_retries: z.number().int().nonnegative().default(9),
  /** A Postgres URL: the global limit then holds across every process on that database (cluster-wide). */
  database_url: z.string().min(1).optional(),
  /** The limiter key. Keep it apart from the API's own `/retrieve` limiter key, or the two would share slots. */
  rate_limit_key: z.string().min(1).default('tools.search'),
});

/**
 * A validated search tool config.
 *
 * @example
 * const { topk, retrieval_service_url }: SearchConfig = tool.settings;
 */
export type SearchConfig = z.output<typeof searchConfigSchema>;
