/**
 * Fusebox's own headers on `/run_code` and `/run_jupyter`: the rollout request (a dumped sample's
 * `request_id`) and the tool instance that sent a run, recorded with it so the dashboard joins a sample's tool
 * calls to its own runs. SandboxFusion ignores them.
 *
 * @example
 * await client.runCode(request, { headers: { [REQUEST_ID_HEADER]: trajectory.requestId } });
 */
export const REQUEST_ID_HEADER = 'x-fusebox-request-id';
export const TOOL_INSTANCE_HEADER = 'x-fusebox-tool-instance';

/** The longest id recorded: a uuid with dashes is 36, so this leaves room for any id scheme a trainer uses. */
export const MAX_ROLLOUT_ID_CHARS = 128;

/** Visible ASCII: ids, not text. A header sent twice arrives joined by ", ", and so is not one either. */
const ID = /^[\x21-\x7e]+$/;

/** Whether `text` can be sent as a rollout origin header (Fusebox answers 422 to one that cannot). */
export function isRolloutId(text: string): boolean {
  return text.length <= MAX_ROLLOUT_ID_CHARS && ID.test(text);
}
