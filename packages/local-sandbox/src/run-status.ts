import type { CommandRunResult, RunStatus } from '@fusebox/sandbox-client/protocol';

/**
 * SandboxFusion's verdict over a run's steps, with its `message`: a step that errored makes it `SandboxError`
 * (the message is that step's stderr); otherwise any timeout or non-zero exit makes it `Failed`. A run that would
 * be `Failed` while other runs starved it of the shared budget, or its compile of CPU (`starved`, the reason), is a
 * `SandboxError`: a reward must not score its program by what its neighbours did. One that succeeded all the same keeps its
 * `Success`.
 *
 * @example
 * runStatus([compileResult, runResult]); // { status: 'Failed', message: '' }
 */
export function runStatus(
  steps: readonly (CommandRunResult | null)[],
  starved?: string,
): {
  status: RunStatus;
  message: string;
} {
  const ran = steps.filter((step): step is CommandRunResult => step !== null);
  const errored = ran.find((step) => step.status === 'Error');
  if (errored) return { status: 'SandboxError', message: errored.stderr ?? '' };
  const failed =
    ran.some((step) => step.status === 'TimeLimitExceeded') ||
    ran.some((step) => step.return_code !== null && step.return_code !== 0);
  if (!failed) return { status: 'Success', message: '' };
  return starved === undefined
    ? { status: 'Failed', message: '' }
    : { status: 'SandboxError', message: starved };
}
