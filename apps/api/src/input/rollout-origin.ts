import type { IncomingHttpHeaders } from 'node:http';
import {
  MAX_ROLLOUT_ID_CHARS,
  REQUEST_ID_HEADER,
  TOOL_INSTANCE_HEADER,
  type ValidationDetailEntry,
  isRolloutId,
} from '@fusebox/sandbox-client/protocol';

/**
 * Where an execution came from, as its row records it: null for a client that does not say (verl's tool).
 * Advisory, as any client's word is. The local executor's sandboxes have no network, so the model's code cannot
 * send a request of its own; an upstream SandboxFusion may let it, and then forge an id it can guess.
 */
export interface RolloutOrigin {
  requestId: string | null;
  toolInstance: string | null;
}

/**
 * The rollout origin a request's headers declare, a header that is not an id left out of it, and FastAPI-style
 * `detail` naming each such header (empty when all are ids or absent; an empty value counts as absent).
 */
export function rolloutOrigin(headers: IncomingHttpHeaders): {
  origin: RolloutOrigin;
  detail: ValidationDetailEntry[];
} {
  const detail: ValidationDetailEntry[] = [];
  const read = (name: string): string | null => {
    const value = headers[name];
    const text = Array.isArray(value) ? value.join(', ') : value;
    if (text === undefined || text === '') return null;
    if (isRolloutId(text)) return text;
    detail.push({
      type: 'string_pattern_mismatch',
      loc: ['header', name],
      msg: `must be an id of 1 to ${MAX_ROLLOUT_ID_CHARS} visible ASCII characters, without spaces, sent once`,
      input: text.slice(0, 2 * MAX_ROLLOUT_ID_CHARS),
    });
    return null;
  };
  return { origin: { requestId: read(REQUEST_ID_HEADER), toolInstance: read(TOOL_INSTANCE_HEADER) }, detail };
}
