'use client';

import { Link } from '~/components/link';
import { formatMs } from '~/components/format';
import { toolResponseFailed, toolResponseSignals } from '@fusebox/rollouts/tool-response-signals';
import type { ToolCallRuns } from './types';

type Execution = ToolCallRuns['executions'][number];

/** Whether an execution failed in any way the model's reward should care about. */
export function executionFailed(execution: Execution): boolean {
  return (
    execution.status !== 'Success' ||
    (execution.runStatus !== null && execution.runStatus !== 'Finished') ||
    (execution.returnCode !== null && execution.returnCode !== 0)
  );
}

/** "Failed · time limit · 10.0 s", "Success · exit 0 · 30 ms · output truncated". */
function describe(execution: Execution): string {
  const parts = [execution.status];
  if (execution.runStatus === 'TimeLimitExceeded') parts.push('time limit');
  else if (execution.returnCode !== null) parts.push(`exit ${execution.returnCode}`);
  if (execution.runMs !== null) parts.push(formatMs(execution.runMs));
  if (execution.outputTruncated) parts.push('output truncated');
  return parts.join(' · ');
}

/**
 * The sandbox run behind a tool call: its status, exit code, time and truncation, linked to the execution
 * (and its session), and what the response's own text shows went wrong.
 */
export function ToolRun({ runs, response }: { runs: ToolCallRuns | undefined; response: string | null }) {
  const signals = toolResponseSignals(response);
  const [execution] = runs?.executions ?? [];
  return (
    <div className="tool-run" aria-label="sandbox run">
      {signals.traceback ? <span className="badge error">traceback</span> : null}
      {signals.timeout ? <span className="badge error">timed out</span> : null}
      {signals.truncated ? <span className="badge warn">truncated</span> : null}
      {runs === undefined ? null : execution ? (
        <>
          <Link
            href={`/executions/${execution.id}`}
            className={`badge ${executionFailed(execution) ? 'error' : 'ok'}`}
            aria-label="execution"
          >
            {describe(execution)}
          </Link>
          {execution.sessionId ? (
            <Link href={`/sessions/${execution.sessionId}`} aria-label="session">
              session {execution.sessionId}
            </Link>
          ) : null}
          <span className="muted">
            {execution.sameRequest
              ? execution.outputMatches
                ? "the run this sample's rollout sent"
                : "a run this sample's request_id sent, though the response does not show its output"
              : execution.outputMatches
                ? 'the run whose output this response shows'
                : 'no run of this code printed this response; the newest shown'}
            {runs.count > 1 ? ` · this code ran ${runs.capped ? `${runs.count}+` : runs.count} times` : ''}
          </span>
        </>
      ) : (
        <span className="muted">no execution of this code in this Fusebox</span>
      )}
    </div>
  );
}

/** Whether a tool call's card should look failed: its run failed, or its response shows a failure. */
export function callFailed(runs: ToolCallRuns | undefined, response: string | null): boolean {
  const [execution] = runs?.executions ?? [];
  return (execution !== undefined && executionFailed(execution)) || toolResponseFailed(response);
}
