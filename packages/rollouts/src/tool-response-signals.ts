import { splitMessages, toolResponses } from './chat-messages';

/**
 * What a tool response's text says went wrong: the model saw only this text, so these are the failures it was
 * shown, whatever the sandbox behind the call recorded.
 */
export interface ToolResponseSignals {
  /** A Python traceback, or a line such as `NameError: name 'x' is not defined`. */
  traceback: boolean;
  /** The run hit its time limit, as SandboxFusion or verl's sandbox tool words it. */
  timeout: boolean;
  /** The output was cut: a truncation marker in the text. */
  truncated: boolean;
}

// The rules are written so that Postgres reads them the same way (the migration that counted rows imported
// before `tool_errors` existed, `20261126170000_rollout_sample_tool_errors`): no `m` flag, ASCII classes only.
const TRACEBACK = /Traceback \(most recent call last\)|(?:^|\n)[ \t]*[A-Z][A-Za-z0-9_]*(?:Error|Exception): /;
/**
 * `no stdout here` is what verl's sandbox tool answers for any run that did not finish, a time limit most
 * often; the others are SandboxFusion's and shells' wording.
 */
const TIMEOUT = /TimeLimitExceeded|timed out|time limit exceeded|(?:^|\n)no stdout here(?:\n|$)/i;
const TRUNCATED = /\[truncated\]|\.\.\.\s*\(truncated|output truncated|<truncated/i;

export function toolResponseSignals(response: string | null): ToolResponseSignals {
  const text = response ?? '';
  return { traceback: TRACEBACK.test(text), timeout: TIMEOUT.test(text), truncated: TRUNCATED.test(text) };
}

/** Whether a tool response shows the model a failure: a traceback or a time limit (a cut output is not one). */
export function toolResponseFailed(response: string | null): boolean {
  const signals = toolResponseSignals(response);
  return signals.traceback || signals.timeout;
}

/**
 * The tool responses in a sample's response that show a failure: what tool-error collapse (or a broken sandbox)
 * shows in. Tool responses the prompt already held are not the rollout's, and are not counted.
 */
export function toolErrors(output: string): number {
  let errors = 0;
  for (const message of splitMessages(output, 'assistant')) {
    for (const response of toolResponses(message) ?? []) if (toolResponseFailed(response)) errors += 1;
  }
  return errors;
}
