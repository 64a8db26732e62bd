import { z } from 'zod';
import { searchSpecSchema } from './search-task';

/**
 * How a session's reward follows from its test counts: `f2p` (the default, what verl's client computes when
 * no reward is given) is f2p_count / f2p_total; `all` counts fail-to-pass and pass-to-pass tests together;
 * `all_or_nothing` is 1 only when every test passes.
 */
export const REWARD_RULES = ['f2p', 'all', 'all_or_nothing'] as const;
export type RewardRule = (typeof REWARD_RULES)[number];

/**
 * A task's run settings, stored in `task.metadata.settings`. Every field has a default, so tasks written before
 * a field existed keep working.
 */
export const taskSettingsSchema = z.object({
  reward: z.enum(REWARD_RULES).default('f2p'),
  /** Wall-clock seconds per action and per test run. */
  runTimeoutS: z.number().positive().max(600).default(10),
  /** Address-space limit of a run, as `/run_code`'s memory_limit_MB (-1: none; the sandbox cap still holds). */
  memoryLimitMB: z.int().min(-1).default(1024),
  /** Observations longer than this are cut in the middle; unset means the server's default. */
  maxObservationChars: z.int().positive().optional(),
});

export type TaskSettings = z.output<typeof taskSettingsSchema>;

/** `task.metadata`: the settings, plus whatever the source format carried that Fusebox does not use. */
export const taskMetadataSchema = z.object({
  settings: taskSettingsSchema.default(() => taskSettingsSchema.parse({})),
  /** Set for a search task (language `search`): its golden answers, corpus and reward rule. */
  search: searchSpecSchema.optional(),
  extra: z.record(z.string(), z.json()).default(() => ({})),
});

export type TaskMetadata = z.output<typeof taskMetadataSchema>;
