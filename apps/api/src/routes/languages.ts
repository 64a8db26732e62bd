import type { FastifyInstance } from 'fastify';
import type { Executor } from '@fusebox/local-sandbox/executor';
import { LANGUAGES } from '@fusebox/sandbox-client/protocol';
import { z } from 'zod';

export const languagesResponseSchema = z.object({
  languages: z.array(
    z.object({
      language: z.enum(LANGUAGES),
      available: z.boolean(),
      version: z.string().nullable().describe("The first line of its toolchain's version output"),
      libraries: z
        .string()
        .nullable()
        .describe('Libraries its runtime profile installs beyond the toolchain'),
      reason: z
        .string()
        .nullable()
        .describe('Why it cannot run here, with the setup command that installs it; null when available'),
    }),
  ),
});

/** Which SandboxFusion languages the local executor runs, with their toolchain versions, and why not the others. */
export function registerLanguageRoutes(app: FastifyInstance, executor: Executor): void {
  app.get('/v1/languages', async () => ({ languages: await executor.languages() }));
}
