import type { z } from 'zod';

/** One problem of an input, with the dotted path of the field it concerns ('' for the input as a whole). */
export interface InputIssue {
  field: string;
  message: string;
}

/** zod's issues as field + message, in the order zod reports them. */
export function inputIssues(error: z.ZodError): InputIssue[] {
  return error.issues.map((issue) => ({ field: issue.path.map(String).join('.'), message: issue.message }));
}

/** All issues on one line: `tests.0.code: Invalid input: expected string, received undefined; …`. */
export function describeIssues(error: z.ZodError): string {
  return inputIssues(error)
    .map(({ field, message }) => (field ? `${field}: ${message}` : message))
    .join('; ');
}
