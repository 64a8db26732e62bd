import { type ZodError, type ZodType, type z } from 'zod';

/**
 * The first problem of a zod error as a key path and a sentence; a missing key reads `missing required key`
 * rather than zod's `expected string, received undefined`.
 */
export function firstZodProblem(error: ZodError): { path: string[]; problem: string } {
  const issue = error.issues[0];
  const path = (issue?.path ?? []).map(String);
  const message = issue?.message ?? 'invalid';
  return { path, problem: message.includes('received undefined') ? 'missing required key' : message };
}

/**
 * Validates options with a zod schema and throws a TypeError naming the key, as every Fusebox API does for bad
 * options; the zod error is its `cause`.
 */
export function parseOptions<T extends ZodType>(schema: T, value: unknown, label: string): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const { path, problem } = firstZodProblem(result.error);
  throw new TypeError(`${[label, ...path].join('.')}: ${problem}`, { cause: result.error });
}
