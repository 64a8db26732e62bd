import {
  type CommandRunResult,
  type RunCategory,
  type RunCodeResponse,
  summarize,
} from '@fusebox/sandbox-client';

/**
 * How the code interpreter words a run for the model. `fusebox` says what happened; `verl` reproduces verl's
 * `SandboxFusionTool` text exactly: stdout + stderr when the run step finished (whatever its exit code), else
 * `no stdout here`.
 *
 * @example
 * describeRun(response, context, 'verl' satisfies RunTextCompat).text; // 'no stdout here' on a timeout
 */
export type RunTextCompat = 'fusebox' | 'verl';

/**
 * verl's whole text for anything but a finished run: a timeout, a compile error, a sandbox error.
 *
 * @example
 * if (text === VERL_NO_STDOUT) console.warn('the run did not finish');
 */
export const VERL_NO_STDOUT = 'no stdout here';

// Python's MemoryError under RLIMIT_AS, C++'s bad_alloc, or a kill by SIGKILL (the cgroup OOM killer).
const OUT_OF_MEMORY = /\bMemoryError\b|std::bad_alloc/;
const SIGKILL_CODES = new Set([-9, 137]);

/**
 * The text for the model, and what happened: the category verl's reward code would give the run, or
 * `memory_limit`, or `unsupported_language` when the model asked for a language the sandbox does not have.
 *
 * @example
 * const { text, category }: RunDescription = describeRun(response, { runTimeout: 30, memoryLimitMb: 1024 });
 */
export interface RunDescription {
  text: string;
  category: RunCategory | 'memory_limit' | 'unsupported_language';
}

/**
 * Words one `/run_code` response for the model. In `fusebox` mode a clean run is its stdout + stderr, the same
 * bytes verl shows; anything else adds a last line saying what happened: `exit code N`, `timeout after Ns`,
 * `compile error` with the compiler's output above it, `memory limit exceeded`, or `sandbox error: <message>`.
 *
 * @example
 * describeRun(response, { runTimeout: 30, memoryLimitMb: 1024 }).text; // 'Traceback …\nZeroDivisionError: …\nexit code 1'
 */
export function describeRun(
  response: RunCodeResponse,
  context: { runTimeout: number; memoryLimitMb: number },
  compat: RunTextCompat = 'fusebox',
): RunDescription {
  const { category, exitCode, message } = summarize(response);
  const run = response.run_result;
  const compile = response.compile_result;
  if (compat === 'verl') return { text: run?.status === 'Finished' ? output(run) : VERL_NO_STDOUT, category };
  switch (category) {
    case 'success':
    case 'wrong_answer':
      return { text: output(run), category };
    case 'compile_error':
      return { text: withStatus(compile, `compile error (exit code ${String(exitCode)})`), category };
    case 'compile_timeout':
      return { text: withStatus(compile, 'compile timeout'), category };
    case 'timeout':
      return { text: withStatus(run, `timeout after ${context.runTimeout}s`), category };
    case 'runtime_error': {
      const limited = context.memoryLimitMb > 0;
      if (OUT_OF_MEMORY.test(run?.stderr ?? '') || (limited && SIGKILL_CODES.has(exitCode ?? 0))) {
        const limit = limited ? ` (${context.memoryLimitMb} MB)` : '';
        return { text: withStatus(run, `memory limit exceeded${limit}`), category: 'memory_limit' };
      }
      return { text: withStatus(run, `exit code ${String(exitCode)}`), category };
    }
    default:
      return {
        text: withStatus(run ?? compile, `sandbox error: ${message || 'the sandbox gave no result'}`),
        category,
      };
  }
}

function output(step: CommandRunResult | null): string {
  return (step?.stdout ?? '') + (step?.stderr ?? '');
}

function withStatus(step: CommandRunResult | null, status: string): string {
  const text = output(step);
  if (text === '') return status;
  return text.endsWith('\n') ? `${text}${status}` : `${text}\n${status}`;
}
