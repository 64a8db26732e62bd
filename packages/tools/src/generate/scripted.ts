import type { Completion, Generate, GenerateRequest } from '../rollout/generate';

/**
 * One scripted turn: the assistant's text (finishing with `stop`), or a full completion.
 *
 * @example
 * const turn: ScriptedTurn = { content: 'cut off mid-sen', finishReason: 'length' };
 */
export type ScriptedTurn = string | Completion;

/**
 * A policy that plays a fixed script, for tests, demos and benchmarks: turn `n` of every episode answers
 * `script[n]`, or whatever the function returns for the request. It keeps no state, so one scripted policy
 * serves a whole batch. Asking for a turn past the end of the script rejects, naming the request.
 *
 * @example
 * const generate = scriptedGenerate([
 *   '<tool_call>\n{"name": "code_interpreter", "arguments": {"code": "print(6 * 7)"}}\n</tool_call>',
 *   'The answer is 42.\n#### 42',
 * ]);
 */
export function scriptedGenerate(
  script: readonly ScriptedTurn[] | ((request: GenerateRequest) => ScriptedTurn),
): Generate {
  const turnOf =
    typeof script === 'function'
      ? script
      : (request: GenerateRequest): ScriptedTurn | undefined => script[request.turn];
  const given: unknown = script;
  if (!Array.isArray(given) && typeof given !== 'function') {
    throw new TypeError('expected the script to be an array of turns or a function of the request');
  }
  return (request, { signal }) =>
    new Promise((resolve) => {
      signal.throwIfAborted();
      const turn = turnOf(request);
      if (turn === undefined) {
        throw new RangeError(`the script has no turn ${request.turn} (request ${request.requestId})`);
      }
      resolve(typeof turn === 'string' ? { content: turn, finishReason: 'stop' } : turn);
    });
}
