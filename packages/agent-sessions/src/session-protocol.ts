import { z } from 'zod';
import { instanceHashSchema } from '@fusebox/tasks';
import { sidSchema } from './session-id';

// The bodies of verl's swedev session API (seed 003): one schema per contract, used by the routes to validate
// and by /openapi.json to describe them.

export const startInstanceRequestSchema = z.object({
  instance_hash: instanceHashSchema.describe('The task: an int64, as digits or a number'),
});

export const startInstanceResponseSchema = z.object({
  sid: z.string().regex(/^\d+$/).describe('The session id: a positive int64 in decimal (verl does int(sid))'),
});

export const processActionRequestSchema = z.object({
  sid: sidSchema.describe('A sid from /start_instance, as digits or a number'),
  content: z.string().describe("The model's action: a fenced code block in the task's language, or code"),
});

export const processActionResponseSchema = z.object({
  content: z
    .string()
    .describe('The observation: the output, then how the run ended (exit code 0, timeout, …)'),
});

export const sidRequestSchema = z.object({
  sid: sidSchema.describe('A sid from /start_instance, as digits or a number'),
});

export const postprocessResponseSchema = z.object({
  sid: z.string(),
  instance_hash: z.string(),
  state: z.enum(['active', 'postprocessed', 'expired']),
  actions: z.int(),
  errors: z.int(),
  reward: z.number().nullable(),
  created_at: z.iso.datetime(),
  postprocessed_at: z.iso.datetime().nullable(),
});

export const computeRewardResponseSchema = z.object({
  reward: z.number().describe("By the task's rule; f2p_count / f2p_total by default"),
  f2p_count: z.int(),
  f2p_total: z.int(),
  p2p_count: z.int(),
  p2p_total: z.int(),
});

export const sessionErrorSchema = z.object({
  detail: z.string(),
  code: z.string().describe('Stable: FUSEBOX_SESSION_NOT_FOUND, FUSEBOX_SESSION_INVALID_REQUEST, …'),
  field: z.string().optional().describe('For 400: the field at fault'),
});
