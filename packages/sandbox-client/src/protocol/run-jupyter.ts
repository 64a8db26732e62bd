import { z } from 'zod';
import { commandRunResultSchema } from './command-run-result';
import { fetchedFilesSchema } from './files';
import { integer } from './integer';
import { runStatusSchema } from './run-status';

/**
 * The body of `POST /run_jupyter`: cells run in order in one kernel. `cell_timeout` 0 means no per-cell limit.
 *
 * @example
 * const request = runJupyterRequestSchema.parse({ cells: ['a = 1', 'a + 1'] });
 * request.total_timeout; // 45
 */
export const runJupyterRequestSchema = z.object({
  cells: z.array(z.string()),
  cell_timeout: z.number().default(0),
  total_timeout: z.number().default(45),
  memory_limit_MB: integer().default(-1),
  kernel: z.literal('python3').default('python3'),
  files: z.record(z.string(), z.string()).default(() => ({})),
  fetch_files: z.array(z.string()).default(() => []),
});

/** A parsed `/run_jupyter` request, defaults filled in. @example const limit = request.total_timeout; */
export type RunJupyterRequest = z.output<typeof runJupyterRequestSchema>;

/** What a caller sends to `/run_jupyter`. @example const input: RunJupyterRequestInput = { cells: ['1 + 1'] }; */
export type RunJupyterRequestInput = z.input<typeof runJupyterRequestSchema>;

/**
 * An exception raised by a cell. Keys follow the order SandboxFusion sends them in; extra keys are kept.
 *
 * @example
 * const error = jupyterCellErrorSchema.parse({ traceback: [], ename: 'ValueError', evalue: 'boom' });
 */
export const jupyterCellErrorSchema = z.looseObject({
  traceback: z.array(z.string()),
  ename: z.string(),
  evalue: z.string(),
});

/**
 * One cell's output. `display` holds rich outputs by MIME type: an expression's value is `display[0]['text/plain']`.
 *
 * @example
 * const cell = jupyterCellSchema.parse({ stdout: '', stderr: '', display: [{ 'text/plain': '2' }], error: [] });
 */
export const jupyterCellSchema = z.object({
  stdout: z.string(),
  stderr: z.string(),
  display: z.array(z.record(z.string(), z.unknown())),
  error: z.array(jupyterCellErrorSchema),
});

/** @example const value = (cell satisfies JupyterCell).display[0]?.['text/plain']; */
export type JupyterCell = z.output<typeof jupyterCellSchema>;

/** @example const failed = (error satisfies JupyterCellError).ename; */
export type JupyterCellError = z.output<typeof jupyterCellErrorSchema>;

/**
 * The body `/run_jupyter` answers with. A cell that raises still gives `Success`; a total timeout gives `Failed`
 * with no cells.
 *
 * @example
 * const response = runJupyterResponseSchema.parse(JSON.parse(text));
 * response.cells.map((cell) => cell.stdout);
 */
export const runJupyterResponseSchema = z.object({
  status: runStatusSchema,
  message: z.string(),
  /** The driver process's own result; its output is the server's internal log. */
  driver: commandRunResultSchema.nullable(),
  cells: z.array(jupyterCellSchema),
  executor_pod_name: z.string().nullable(),
  files: fetchedFilesSchema,
});

/** @example const cells = (response satisfies RunJupyterResponse).cells; */
export type RunJupyterResponse = z.output<typeof runJupyterResponseSchema>;
