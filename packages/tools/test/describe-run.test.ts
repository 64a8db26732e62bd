import type { RunCodeResponse } from '@fusebox/sandbox-client/protocol';
import { describe, expect, it } from 'vitest';
import { describeRun } from '../src/describe-run';

// A sandbox that fails on its own side cannot be provoked through a healthy server, so this one shape is written
// out as SandboxFusion answers it (HTTP 200, status SandboxError).
const sandboxError: RunCodeResponse = {
  status: 'SandboxError',
  message: 'executor pod evicted',
  compile_result: null,
  run_result: { status: 'Error', execution_time: null, return_code: null, stdout: 'partial\n', stderr: '' },
  executor_pod_name: null,
  files: {},
};
const context = { runTimeout: 30, memoryLimitMb: 1024 };

describe('describeRun', () => {
  it('passes on the sandbox’s own error message, after what was printed', () => {
    expect(describeRun(sandboxError, context)).toEqual({
      text: 'partial\nsandbox error: executor pod evicted',
      category: 'sandbox_error',
    });
  });

  it("gives verl's text for it in compat mode", () => {
    expect(describeRun(sandboxError, context, 'verl').text).toBe('no stdout here');
  });

  it('counts a SIGKILL under a memory limit as the memory limit', () => {
    const killed: RunCodeResponse = {
      ...sandboxError,
      status: 'Failed',
      message: '',
      run_result: { status: 'Finished', execution_time: 1, return_code: 137, stdout: '', stderr: '' },
    };
    expect(describeRun(killed, context)).toEqual({
      text: 'memory limit exceeded (1024 MB)',
      category: 'memory_limit',
    });
    expect(describeRun(killed, { ...context, memoryLimitMb: -1 }).text).toBe('exit code 137');
  });
});
