import { describe, expect, it } from 'vitest';
import { SandboxUnavailableError, summarize } from '@fusebox/sandbox-client';
import { type RunCodeResponse, runCodeResponseSchema } from '@fusebox/sandbox-client/protocol';
import { readContractFixtures } from '@fusebox/testing/contract-fixtures';

const recorded = (name: string): RunCodeResponse =>
  runCodeResponseSchema.parse(JSON.parse(readContractFixtures().find((f) => f.name === name)!.responseText));

const step = (
  status: 'Finished' | 'Error' | 'TimeLimitExceeded',
  return_code: number | null,
  stderr = '',
) => ({
  status,
  execution_time: 1,
  return_code,
  stdout: '',
  stderr,
});

describe('summarize, in verl’s categories', () => {
  it('success, with the exit code and trimmed output', () => {
    expect(summarize(recorded('python_hello'))).toEqual({
      category: 'success',
      exitCode: 0,
      stdout: 'Hello, world!',
      stderr: '',
      message: '',
    });
  });

  it('wrong_answer when stdout differs from the expected output beyond trailing newlines', () => {
    expect(summarize(recorded('python_hello'), { expectedOutput: 'Hello, world!' }).category).toBe('success');
    expect(summarize(recorded('python_hello'), { expectedOutput: 'Goodbye' }).category).toBe('wrong_answer');
  });

  it('compares an output of many newlines in one pass', { timeout: 20_000 }, () => {
    // `/\n+$/` retried from every newline of the run: the old code took 88 s for these two summaries (1 s at
    // 40 kB).
    const run = { ...step('Finished', 0), stdout: `${'\n'.repeat(200_000)}x\n\n` };
    const answer = { ...recorded('python_hello'), run_result: run };
    expect(summarize(answer, { expectedOutput: `${'\n'.repeat(200_000)}x` }).category).toBe('success');
    expect(summarize(answer, { expectedOutput: 'x' }).category).toBe('wrong_answer');
  });

  it('runtime_error for a non-zero exit or an exception', () => {
    expect(summarize(recorded('python_exit_code_3'))).toMatchObject({
      category: 'runtime_error',
      exitCode: 3,
      stdout: 'before exit',
    });
    const raised = summarize(recorded('python_raise_valueerror'));
    expect(raised).toMatchObject({ category: 'runtime_error', exitCode: 1 });
    expect(raised.stderr).toMatch(/^Traceback .*ValueError: boom$/s);
  });

  it('timeout for a run past run_timeout', () => {
    expect(summarize(recorded('python_timeout_loop'))).toMatchObject({
      category: 'timeout',
      exitCode: null,
      stdout: 'started',
    });
  });

  it('compile_error with the compiler’s exit code and stderr', () => {
    const summary = summarize(recorded('cpp_compile_error'));
    expect(summary).toMatchObject({ category: 'compile_error', exitCode: 1 });
    expect(summary.stderr).toContain(
      "'undefined_name' was not declared".replace(/'/g, '‘').replace('‘ was', '’ was'),
    );
  });

  it('compile_timeout when the compile step ran out of time', () => {
    const response = { ...recorded('cpp_compile_error'), compile_result: step('TimeLimitExceeded', null) };
    expect(summarize(response).category).toBe('compile_timeout');
  });

  it('sandbox_error for a SandboxError, with the sandbox’s message, and for self-contradicting answers', () => {
    const failed = recorded('python_exit_code_3');
    expect(
      summarize({
        ...failed,
        status: 'SandboxError',
        message: 'spawn failed',
        run_result: step('Error', null),
      }),
    ).toMatchObject({ category: 'sandbox_error', message: 'spawn failed' });
    expect(summarize({ ...failed, run_result: step('Finished', 0) }).category).toBe('sandbox_error');
    expect(summarize({ ...failed, status: 'Success', run_result: null }).category).toBe('sandbox_error');
  });

  it('api_error for a call that failed, with the error message', () => {
    const error = new SandboxUnavailableError(
      'http://sandbox/run_code',
      5,
      new Error('connect ECONNREFUSED'),
    );
    expect(summarize(error)).toEqual({
      category: 'api_error',
      exitCode: null,
      stdout: '',
      stderr: '',
      message: 'http://sandbox/run_code is unavailable after 5 attempts: connect ECONNREFUSED',
    });
  });
});
