import type { CommandRunResult, RunStatus } from '@fusebox/sandbox-client/protocol';

/**
 * SandboxFusion's verdict over a run's steps, with its `message`: a step that errored makes it `SandboxError`
 * (the message is that step's stderr); otherwise any timeout or non-zero exit makes it `Failed`. A run that other
 * runs starved of the shared budget (`starved`, the reason) is a `SandboxError` too, whatever its steps say: a
 * reward must not score its program by what its neighbours did.
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
  if (starved !== undefined) return { status: 'SandboxError', message: starved };
  const ran = steps.filter((step): step is CommandRunResult => step !== null);
  const errored = ran.find((step) => step.status === 'Error');
  if (errored) return { status: 'SandboxError', message: errored.stderr ?? '' };
  if (ran.some((step) => step.status === 'TimeLimitExceeded')) return { status: 'Failed', message: '' };
  if (ran.some((step) => step.return_code !== null && step.return_code !== 0))
    return { status: 'Failed', message: '' };
  return { status: 'Success', message: '' };
}
