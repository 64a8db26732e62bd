import { z } from 'zod';

/**
 * pydantic's messages for a bad `int` field. zod reports every non-number as "expected number" whether the field
 * is an int or a float, so int fields carry their pydantic message in the issue and `validationDetail` reads it
 * back from there.
 */
export const INTEGER_ERRORS = {
  int_parsing: 'Input should be a valid integer, unable to parse string as an integer',
  int_from_float: 'Input should be a valid integer, got a number with a fractional part',
  int_type: 'Input should be a valid integer',
} as const;

export type IntegerErrorType = keyof typeof INTEGER_ERRORS;

function integerErrorType(input: unknown): IntegerErrorType {
  if (typeof input === 'string') return 'int_parsing';
  if (typeof input === 'number' && !Number.isInteger(input)) return 'int_from_float';
  return 'int_type';
}

/**
 * An integer field (pydantic `int`) whose validation issues carry pydantic's message.
 *
 * @example
 * const memoryLimit = integer().default(-1);
 */
export function integer() {
  return z.int({ error: (issue) => INTEGER_ERRORS[integerErrorType(issue.input)] });
}
