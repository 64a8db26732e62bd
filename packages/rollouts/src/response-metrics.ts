import { toolErrors } from './tool-response-signals';

/** What the browser sorts, filters and charts a response by, counted once when its line is imported. */
export interface ResponseMetrics {
  /** Characters as Postgres's `length()` counts them (code points), so SQL and JavaScript agree. */
  responseChars: number;
  /** `<tool_call>`s the model wrote: what tool-use collapse shows in. */
  toolCalls: number;
  /** Tool responses that show the model a traceback or a time limit (see `toolErrors`). */
  toolErrors: number;
  /** Assistant messages: one, plus one per `assistant` role line after a newline (none for an empty response). */
  turns: number;
}

const TOOL_CALL_TAG = '<tool_call>';
const ASSISTANT_LINE = '\nassistant\n';
/** Any UTF-16 surrogate: most responses have none, and a regex test finds that faster than a loop. */
const SURROGATE = /[\uD800-\uDFFF]/;

function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

/**
 * Counts a response's metrics the way the migrations that added them counted older rows in SQL
 * (`20261125200500_rollout_sample_metrics`: non-overlapping occurrences, lengths in code points;
 * `20261126170000_rollout_sample_tool_errors`).
 */
export function responseMetrics(output: string): ResponseMetrics {
  return {
    responseChars: SURROGATE.test(output) ? [...output].length : output.length,
    toolCalls: occurrences(output, TOOL_CALL_TAG),
    toolErrors: toolErrors(output),
    turns: output === '' ? 0 : 1 + occurrences(output, ASSISTANT_LINE),
  };
}
