import type { RunCodeResponse } from '@fusebox/sandbox-client/protocol';
import { describeRun, type RunDescription, truncateToolResponse } from '@fusebox/tools';
import { endsState } from './session-cells';

/** What an action's run gives the model, and what is stored with the action. */
export interface Observation {
  /** The text answered as `content`: output, then a line saying how the run ended. */
  text: string;
  /** describeRun's category: success, runtime_error, timeout, compile_error, memory_limit, sandbox_error, … */
  status: RunDescription['category'];
  returnCode: number | null;
  /** A stateful session's interpreter state was lost (a timeout or crash); the next action starts afresh. */
  stateLost: boolean;
  truncated: boolean;
}

export interface ObservationOptions {
  runTimeoutS: number;
  memoryLimitMB: number;
  /** Longer texts are cut in the middle, around a visible `...(truncated)...`. */
  maxChars: number;
  stateful: boolean;
}

const STATE_LOST = 'the Python session was restarted: definitions from earlier actions are gone';

/**
 * Words a run for the model the way the code interpreter tool does (describeRun), always ending with how it
 * ended: `exit code 0` after a clean run, `exit code 1`, `timeout after 10s`, `compile error …`. Output past
 * `maxChars` is cut in the middle, so both the start and that last line survive.
 */
export function describeAction(response: RunCodeResponse, options: ObservationOptions): Observation {
  const { text, category } = describeRun(response, {
    runTimeout: options.runTimeoutS,
    memoryLimitMb: options.memoryLimitMB,
  });
  const stateLost = options.stateful && endsState(category);
  const lines = [category === 'success' ? withLine(text, 'exit code 0') : text];
  if (stateLost) lines.push(STATE_LOST);
  const cut = truncateToolResponse(lines.join('\n'), options.maxChars, 'middle');
  const step = response.run_result ?? response.compile_result;
  return {
    text: cut.text,
    status: category,
    returnCode: step?.return_code ?? null,
    stateLost,
    truncated: cut.truncated,
  };
}

function withLine(text: string, line: string): string {
  if (text === '') return line;
  return text.endsWith('\n') ? `${text}${line}` : `${text}\n${line}`;
}
