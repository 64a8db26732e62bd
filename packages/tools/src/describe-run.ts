import type { CommandRunResult, RunCodeResponse } from '@fusebox/sandbox-client/protocol';

/**
 * How the code interpreter words a run for the model. `fusebox` says what happened; `verl` reproduces verl's
 * `SandboxFusionTool` text exactly: stdout + stderr when the run step finished (whatever its exit code), else
 * `no stdout here`.
 */
export type RunTextCompat = 'fusebox' | 'verl';

/** verl's whole text for anything but a finished run: a timeout, a compile error, a sandbox error. */
export const VERL_NO_STDOUT = 'no stdout here';

// Python's MemoryError under RLIMIT_AS, C++'s bad_alloc, or a kill by SIGKILL (the cgroup OOM killer).
const OUT_OF_MEMORY = /\bMemoryError\b|std::bad_alloc/;
const SIGKILL_CODES = new Set([-9, 137]);

/**
 * The tool message for one `/run_code` response. In `fusebox` mode a clean run is its stdout + stderr, the same
 * bytes verl shows; anything else adds a last line saying what happened: `exit code N`, `timeout after Ns`,
 * `compile error` with the compiler's message, `memory limit exceeded`, or `sandbox error` with its message.
 *
 * @example
 * describeRun(response, { runTimeout: 30, memoryLimitMb: 1024 }); // 'Traceback …\nZeroDivisionError: …\nexit code 1'
 */
export function describeRun(
  response: RunCodeResponse,
  context: { runTimeout: number; memoryLimitMb: number },
  compat: RunTextCompat = 'fusebox',
): string {
  const run = response.run_result;
  if (compat === 'verl') return run?.status === 'Finished' ? output(run) : VERL_NO_STDOUT;

  if (response.status === 'SandboxError') {
    return withOutput(run, `sandbox error: ${response.message || 'the sandbox failed without a message'}`);
  }
  const compile = response.compile_result;
  if (compile && compile.status === 'TimeLimitExceeded') return withOutput(compile, 'compile timeout');
  if (compile && compile.return_code !== 0) {
    return withOutput(compile, `compile error (exit code ${String(compile.return_code)})`);
  }
  if (!run) return 'sandbox error: the sandbox returned no run result';
  if (run.status === 'TimeLimitExceeded') return withOutput(run, `timeout after ${context.runTimeout}s`);
  if (run.return_code === 0) return output(run);
  const oom =
    OUT_OF_MEMORY.test(run.stderr ?? '') ||
    (context.memoryLimitMb > 0 && SIGKILL_CODES.has(run.return_code ?? 0));
  const limit = context.memoryLimitMb > 0 ? ` (${context.memoryLimitMb} MB)` : '';
  return withOutput(run, oom ? `memory limit exceeded${limit}` : `exit code ${String(run.return_code)}`);
}

function output(step: CommandRunResult): string {
  return (step.stdout ?? '') + (step.stderr ?? '');
}

function withOutput(step: CommandRunResult | null, status: string): string {
  const text = step ? output(step) : '';
  if (text === '') return status;
  return text.endsWith('\n') ? `${text}${status}` : `${text}\n${status}`;
}
