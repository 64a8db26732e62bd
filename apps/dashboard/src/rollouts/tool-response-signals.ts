/**
 * What a tool response's text says went wrong, read when no execution could be joined to the call (or beside
 * it): the model saw only this text, so these are the failures it was shown.
 */
export interface ToolResponseSignals {
  /** A Python traceback, or a last line such as `NameError: name 'x' is not defined`. */
  traceback: boolean;
  /** The run hit its time limit, as SandboxFusion or verl's sandbox tool words it. */
  timeout: boolean;
  /** The output was cut: a truncation marker in the text. */
  truncated: boolean;
}

const TRACEBACK = /Traceback \(most recent call last\)|^\s*[A-Z]\w*(Error|Exception): /m;
/**
 * `no stdout here` is what verl's sandbox tool answers for any run that did not finish, a time limit most
 * often; the others are SandboxFusion's and shells' wording.
 */
const TIMEOUT = /TimeLimitExceeded|timed out|time limit exceeded|^no stdout here$/im;
const TRUNCATED = /\[truncated\]|\.\.\.\s*\(truncated|output truncated|<truncated/i;

export function toolResponseSignals(response: string | null): ToolResponseSignals {
  const text = response ?? '';
  return { traceback: TRACEBACK.test(text), timeout: TIMEOUT.test(text), truncated: TRUNCATED.test(text) };
}
