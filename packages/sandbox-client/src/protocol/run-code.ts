import { z } from 'zod';
import { commandRunResultSchema } from './command-run-result';
import { fetchedFilesSchema } from './files';
import { integer } from './integer';
import { languageSchema } from './languages';
import { runStatusSchema } from './run-status';

/**
 * The body of `POST /run_code`, with SandboxFusion's defaults. Keys follow the pydantic model's field order, so
 * several invalid fields are reported in the same order as SandboxFusion reports them. Unknown fields are
 * dropped, as pydantic ignores them.
 *
 * @example
 * const request = runCodeRequestSchema.parse({ code: 'print(1)', language: 'python' });
 * request.run_timeout; // 10
 */
export const runCodeRequestSchema = z.object({
  /** Seconds, for compiled languages. */
  compile_timeout: z.number().default(10),
  /** Seconds of wall clock for the run step. */
  run_timeout: z.number().default(10),
  /** -1 means no limit. */
  memory_limit_MB: integer().default(-1),
  code: z.string(),
  stdin: z.string().nullable().default(null),
  language: languageSchema,
  /** Relative path to base64 content; a null value is skipped. */
  files: z.record(z.string(), z.string().nullable()).default(() => ({})),
  /** Relative paths to return, base64, in the response's `files`. */
  fetch_files: z.array(z.string()).default(() => []),
});

/** A parsed `/run_code` request: every default is filled in. @example const timeout = request.run_timeout; */
export type RunCodeRequest = z.output<typeof runCodeRequestSchema>;

/**
 * What a caller sends to `/run_code`: only `code` and `language` are required.
 *
 * @example
 * const input: RunCodeRequestInput = { code: 'echo hi', language: 'bash', run_timeout: 5 };
 */
export type RunCodeRequestInput = z.input<typeof runCodeRequestSchema>;

/**
 * The body `/run_code` answers with (HTTP 200, even for `SandboxError`). Key order is SandboxFusion's, so
 * serialising a parsed response keeps its field order.
 *
 * @example
 * const response = runCodeResponseSchema.parse(JSON.parse(text));
 * if (response.status === 'Success') console.log(response.run_result?.stdout);
 */
export const runCodeResponseSchema = z.object({
  status: runStatusSchema,
  /** Empty unless `status` is `SandboxError`. */
  message: z.string(),
  /** Null for interpreted languages. */
  compile_result: commandRunResultSchema.nullable(),
  /** Null when compilation failed. */
  run_result: commandRunResultSchema.nullable(),
  executor_pod_name: z.string().nullable(),
  files: fetchedFilesSchema,
});

/** @example const stdout = (response satisfies RunCodeResponse).run_result?.stdout; */
export type RunCodeResponse = z.output<typeof runCodeResponseSchema>;
