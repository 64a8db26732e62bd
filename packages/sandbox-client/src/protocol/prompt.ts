import { z } from 'zod';
import { problemIdSchema } from './test-config';

/**
 * One chat message of a prompt.
 *
 * @example
 * promptMessageSchema.parse({ role: 'user', content: 'Write a function.' });
 */
export const promptMessageSchema = z.object({ role: z.string(), content: z.string() });

/**
 * A dataset problem as the model sees it: plain text or chat messages, with the dataset's labels.
 *
 * @example
 * const prompt = promptSchema.parse({ id: 0, prompt: 'Write a function.', labels: {} });
 */
export const promptSchema = z.object({
  id: problemIdSchema,
  prompt: z.union([z.string(), z.array(promptMessageSchema)]),
  labels: z.record(z.string(), z.unknown()).default(() => ({})),
});

/** @example const text = typeof (prompt satisfies Prompt).prompt === 'string' ? prompt.prompt : ''; */
export type Prompt = z.output<typeof promptSchema>;
