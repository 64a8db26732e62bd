import type { z } from 'zod';
import { INTEGER_ERRORS, type IntegerErrorType } from './integer';

/**
 * One entry of a FastAPI 422 body, in pydantic v2's shape and key order.
 *
 * @example
 * const entry: ValidationDetailEntry = { type: 'missing', loc: ['body', 'code'], msg: 'Field required', input: {} };
 */
export interface ValidationDetailEntry {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

/** @example const first = (body satisfies ValidationDetail).detail[0]?.msg; */
export interface ValidationDetail {
  detail: ValidationDetailEntry[];
}

const TYPE_ERRORS: Record<string, { type: string; msg: string }> = {
  string: { type: 'string_type', msg: 'Input should be a valid string' },
  boolean: { type: 'bool_type', msg: 'Input should be a valid boolean' },
  array: { type: 'list_type', msg: 'Input should be a valid list' },
  object: { type: 'dict_type', msg: 'Input should be a valid dictionary' },
  record: { type: 'dict_type', msg: 'Input should be a valid dictionary' },
};

/**
 * Turns a failed zod parse of a request body into the 422 body SandboxFusion (FastAPI + pydantic v2) answers
 * with, so a Fusebox server rejects bad requests exactly as clients of SandboxFusion expect.
 *
 * @example
 * const parsed = runCodeRequestSchema.safeParse(body);
 * if (!parsed.success) return reply.code(422).send(validationDetail(parsed.error, body));
 */
export function validationDetail(error: z.ZodError, body: unknown): ValidationDetail {
  return { detail: error.issues.map((issue) => detailEntry(issue, body)) };
}

function detailEntry(issue: z.core.$ZodIssue, body: unknown): ValidationDetailEntry {
  const path = issue.path.filter((key): key is string | number => typeof key !== 'symbol');
  const loc = ['body', ...path];
  if (path.length === 0 && (body === undefined || body === null)) {
    return { type: 'missing', loc, msg: 'Field required', input: null };
  }
  if (path.length === 0 && issue.code === 'invalid_type') {
    return {
      type: 'model_attributes_type',
      loc,
      msg: 'Input should be a valid dictionary or object to extract fields from',
      input: body,
    };
  }
  const parent = valueAt(body, path.slice(0, -1));
  const input = valueAt(body, path);
  if (input === undefined) return { type: 'missing', loc, msg: 'Field required', input: parent };

  if (issue.code === 'invalid_value') {
    const expected = pythonAlternatives(issue.values);
    return { type: 'literal_error', loc, msg: `Input should be ${expected}`, input, ctx: { expected } };
  }
  if (issue.code === 'invalid_type') {
    const integerError = integerErrorType(issue.message);
    if (integerError) return { type: integerError, loc, msg: INTEGER_ERRORS[integerError], input };
    if (issue.expected === 'number') {
      return typeof input === 'string'
        ? {
            type: 'float_parsing',
            loc,
            msg: 'Input should be a valid number, unable to parse string as a number',
            input,
          }
        : { type: 'float_type', loc, msg: 'Input should be a valid number', input };
    }
    const typeError = TYPE_ERRORS[issue.expected];
    if (typeError) return { ...typeError, loc, input };
  }
  return { type: 'value_error', loc, msg: `Value error, ${issue.message}`, input };
}

function integerErrorType(message: string): IntegerErrorType | undefined {
  return (Object.keys(INTEGER_ERRORS) as IntegerErrorType[]).find((type) => INTEGER_ERRORS[type] === message);
}

function valueAt(value: unknown, path: readonly (string | number)[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

/** pydantic lists literals as Python reprs joined like "'a', 'b' or 'c'". */
function pythonAlternatives(values: readonly unknown[]): string {
  const reprs = values.map((value) => (typeof value === 'string' ? `'${value}'` : String(value)));
  const last = reprs.pop();
  return reprs.length === 0 ? (last ?? '') : `${reprs.join(', ')} or ${last}`;
}
