import { DEFAULT_MAX_TOOL_RESPONSE_LENGTH, type TruncateSide } from '../truncate';

/**
 * verl's `multi_turn` settings, in camelCase, plus the token budget (verl's `response_length`).
 *
 * @example
 * const limits: EpisodeLimits = { maxAssistantTurns: 5, maxResponseTokens: 4096, maxParallelCalls: 4 };
 */
export interface EpisodeLimits {
  /** Assistant turns before the episode ends; unlimited by default, as in verl. */
  maxAssistantTurns?: number;
  /** Rounds of tool responses before the episode ends; unlimited by default. */
  maxUserTurns?: number;
  /** Tokens of assistant and tool messages together before the episode ends TRUNCATED. */
  maxResponseTokens?: number;
  /** How many tool calls of one turn run at once (default 1, as verl). Every call runs; verl drops the rest. */
  maxParallelCalls?: number;
  /** Characters of a tool response the model sees (default 256, as verl). */
  maxToolResponseLength?: number;
  /** What truncation keeps (default `middle`, as verl). */
  toolResponseTruncateSide?: TruncateSide;
}

/**
 * Limits with every default filled in; unlimited ones are Infinity.
 *
 * @example
 * resolveLimits({ maxAssistantTurns: 5 }).maxResponseTokens; // Infinity
 */
export type ResolvedLimits = Required<
  Omit<EpisodeLimits, 'maxAssistantTurns' | 'maxUserTurns' | 'maxResponseTokens'>
> & {
  maxAssistantTurns: number;
  maxUserTurns: number;
  maxResponseTokens: number;
};

const SIDES: readonly TruncateSide[] = ['left', 'right', 'middle'];

/**
 * Validates limits up front and fills verl's defaults. Throws a TypeError naming the bad field; an episode with
 * neither a turn limit nor a token budget could loop forever, so one of them is required.
 *
 * @example
 * resolveLimits({ maxAssistantTurns: 5 }).maxToolResponseLength; // 256
 */
export function resolveLimits(limits: EpisodeLimits = {}): ResolvedLimits {
  const positive = (name: keyof EpisodeLimits, value: number | undefined, fallback: number): number => {
    if (value === undefined) return fallback;
    if (!Number.isInteger(value) || value < 1) {
      throw new TypeError(`expected limits.${name} to be a positive integer, got ${String(value)}`);
    }
    return value;
  };
  const side = limits.toolResponseTruncateSide ?? 'middle';
  if (!SIDES.includes(side)) {
    throw new TypeError(
      `expected limits.toolResponseTruncateSide to be left, right or middle, got ${String(side)}`,
    );
  }
  const resolved: ResolvedLimits = {
    maxAssistantTurns: positive('maxAssistantTurns', limits.maxAssistantTurns, Infinity),
    maxUserTurns: positive('maxUserTurns', limits.maxUserTurns, Infinity),
    maxResponseTokens: positive('maxResponseTokens', limits.maxResponseTokens, Infinity),
    maxParallelCalls: positive('maxParallelCalls', limits.maxParallelCalls, 1),
    maxToolResponseLength: positive(
      'maxToolResponseLength',
      limits.maxToolResponseLength,
      DEFAULT_MAX_TOOL_RESPONSE_LENGTH,
    ),
    toolResponseTruncateSide: side,
  };
  if (resolved.maxAssistantTurns === Infinity && resolved.maxResponseTokens === Infinity) {
    throw new TypeError(
      'expected limits.maxAssistantTurns or limits.maxResponseTokens: without either, a model that keeps calling tools never stops',
    );
  }
  return resolved;
}
