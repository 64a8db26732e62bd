import type { IncomingHttpHeaders } from 'node:http';
import {
  MAX_ROLLOUT_ID_CHARS,
  REQUEST_ID_HEADER,
  TOOL_INSTANCE_HEADER,
  type ValidationDetailEntry,
  isRolloutId,
} from '@fusebox/sandbox-client/protocol';

/** Where an execution came from, as its row records it: null for a client that does not say (verl's tool). */
export interface RolloutOrigin {
  requestId: string | null;
  toolInstance: string | null;
}

/**
 * The rollout origin a request's headers declare, or FastAPI-style `detail` naming each header that is not an
 * id. Only the rollout code sets these headers: the model's code runs without a network, so it cannot send a
 * request of its own.
 */
export function rolloutOrigin(
  headers: IncomingHttpHeaders,
): { origin: RolloutOrigin } | { detail: ValidationDetailEntry[] } {
  const detail: ValidationDetailEntry[] = [];
  const read = (name: string): string | null => {
    const value = headers[name];
    if (value === undefined) return null;
    const text = Array.isArray(value) ? value.join(', ') : value;
    if (isRolloutId(text)) return text;
    detail.push({
      type: 'string_pattern_mismatch',
      loc: ['header', name],
      msg: `must be an id of 1 to ${MAX_ROLLOUT_ID_CHARS} visible ASCII characters, without spaces, sent once`,
      input: text.slice(0, 2 * MAX_ROLLOUT_ID_CHARS),
    });
    return null;
  };
  const origin = { requestId: read(REQUEST_ID_HEADER), toolInstance: read(TOOL_INSTANCE_HEADER) };
  return detail.length > 0 ? { detail } : { origin };
}
