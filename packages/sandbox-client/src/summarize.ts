import { isSandboxClientError, type SandboxClientError } from './errors/sandbox-client-error';
import type { CommandRunResult } from './protocol/command-run-result';
import type { RunCodeResponse } from './protocol/run-code';

/**
 * What happened to a run, in the categories verl's sandbox_fusion reward code assigns
 * (`verl/utils/reward_score/sandbox_fusion/utils.py`).
 *
 * @example
 * const reward = (category: RunCategory) => (category === 'success' ? 1 : 0);
 */
export type RunCategory =
  | 'success'
  | 'wrong_answer'
  | 'compile_error'
  | 'compile_timeout'
  | 'runtime_error'
  | 'timeout'
  | 'sandbox_error'
  | 'api_error';

/** @example const { category, exitCode, stderr } = summarize(response) satisfies RunSummary; */
export interface RunSummary {
  category: RunCategory;
  /** The exit code of the step that decided the category (compile or run); null on a timeout or when none ran. */
  exitCode: number | null;
  /** That step's output, trimmed. */
  stdout: string;
  stderr: string;
  /** The sandbox's or the client's error message for `sandbox_error` and `api_error`; '' otherwise. */
  message: string;
}

/**
 * Compares stdout with the expected output the way verl does, ignoring trailing newlines; without it, a
 * successful run is `success` whatever it printed.
 *
 * @example
 * summarize(response, { expectedOutput: '42\n' });
 */
export interface SummarizeOptions {
  expectedOutput?: string;
}

/**
 * Maps a `/run_code` answer, or the error a call failed with (`api_error`), to one category. A response that
 * contradicts itself (say `Failed` with no failing step) counts as `sandbox_error`, where verl counts an
 * unknown state, since neither is the model's fault.
 *
 * @example
 * const results = await client.runConcurrent(requests);
 * const categories = results.map((result, i) => summarize(result, { expectedOutput: expected[i] }).category);
 */
export function summarize(
  outcome: RunCodeResponse | SandboxClientError,
  options: SummarizeOptions = {},
): RunSummary {
  if (isSandboxClientError(outcome)) return step(undefined, 'api_error', outcome.message);
  const { status, compile_result: compile, run_result: run } = outcome;
  if (status === 'SandboxError') return step(run ?? compile, 'sandbox_error', outcome.message);
  if (status === 'Failed') {
    if (compile && (compile.status !== 'Finished' || compile.return_code !== 0)) {
      return step(compile, compile.status === 'TimeLimitExceeded' ? 'compile_timeout' : 'compile_error');
    }
    if (run?.status === 'TimeLimitExceeded') return step(run, 'timeout');
    if (run && (run.status === 'Error' || run.return_code !== 0)) return step(run, 'runtime_error');
    return step(run ?? compile, 'sandbox_error');
  }
  if (run?.status !== 'Finished') return step(run ?? compile, 'sandbox_error');
  const { expectedOutput } = options;
  const matches =
    expectedOutput === undefined || trimNewlines(run.stdout ?? '') === trimNewlines(expectedOutput);
  return step(run, matches ? 'success' : 'wrong_answer');
}

function step(result: CommandRunResult | null | undefined, category: RunCategory, message = ''): RunSummary {
  return {
    category,
    exitCode: result?.return_code ?? null,
    stdout: (result?.stdout ?? '').trim(),
    stderr: (result?.stderr ?? '').trim(),
    message,
  };
}

/** The text without its trailing newlines: a loop, since `/\n+$/` retries from each newline of a run. */
function trimNewlines(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x0a) end -= 1;
  return text.slice(0, end);
}
