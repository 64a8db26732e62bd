import type { CodeExecution, JupyterExecution } from '@fusebox/local-sandbox/executor';
import type { ExecutionTiming } from './execution-gate';

/**
 * What an execution aborted by a lost global permit answers: SandboxFusion's `SandboxError` (HTTP 200, as
 * SandboxFusion answers its own failures), never a success, so clients that retry sandbox errors retry it.
 */
function lostMessage(lost: Error): string {
  return `${lost.message}; the execution was aborted to keep the cluster within its limit, retry it`;
}

/** `/run_code`'s answer and row data for an execution whose permit was lost. */
export function lostCodeExecution(lost: Error, timing: ExecutionTiming): CodeExecution {
  return {
    response: {
      status: 'SandboxError',
      message: lostMessage(lost),
      compile_result: null,
      run_result: null,
      executor_pod_name: null,
      files: {},
    },
    compileMs: null,
    runMs: null,
    outputTruncated: false,
    timing,
  };
}

/** `/run_jupyter`'s answer and row data for an execution whose permit was lost. */
export function lostJupyterExecution(lost: Error, timing: ExecutionTiming): JupyterExecution {
  return {
    response: {
      status: 'SandboxError',
      message: lostMessage(lost),
      driver: null,
      cells: [],
      executor_pod_name: null,
      files: {},
    },
    outputTruncated: false,
    timing,
  };
}
