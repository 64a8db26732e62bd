import { z } from 'zod';

/** Thrown when an environment variable is malformed; a command prints it and exits 2. */
export class InvalidEnvironmentError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid environment:\n${problems.map((problem) => `  ${problem}`).join('\n')}`);
    this.name = 'InvalidEnvironmentError';
  }
}

/** A port number variable, with its default. */
export const portSetting = (fallback: number) =>
  z.coerce
    .number({ error: 'expected a port number from 0 to 65535' })
    .int('expected a port number from 0 to 65535')
    .min(0, 'expected a port number from 0 to 65535')
    .max(65535, 'expected a port number from 0 to 65535')
    .default(fallback);

/**
 * The variables a schema names, read from `source` and validated; empty strings count as unset, as shells often
 * export them so. Every malformed variable is named with its value in one InvalidEnvironmentError.
 */
export function readEnvironment<Shape extends z.ZodRawShape>(
  schema: z.ZodObject<Shape>,
  source: NodeJS.ProcessEnv,
): z.output<z.ZodObject<Shape>> {
  const present = Object.fromEntries(
    Object.keys(schema.shape)
      .map((key) => [key, source[key]] as const)
      .filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = schema.safeParse(present);
  if (parsed.success) return parsed.data;
  throw new InvalidEnvironmentError(
    parsed.error.issues.map((issue) => {
      const key = String(issue.path[0]);
      return `${key}=${JSON.stringify(present[key])}: ${issue.message}`;
    }),
  );
}
