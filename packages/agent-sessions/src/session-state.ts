/**
 * `active` until /postprocess (`postprocessed`) or until it sat idle past the idle timeout (`expired`). Rewards
 * can be computed in every state; actions are accepted only while active.
 */
export const SESSION_STATES = ['active', 'postprocessed', 'expired'] as const;
export type SessionState = (typeof SESSION_STATES)[number];
