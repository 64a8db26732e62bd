import type { FieldEntries } from './json-scan';

/**
 * A bound on one top-level field of a request body: how many entries an array or object may hold, or how large a
 * number may be. `setting` names the environment variable that sets `max`, so a refusal says how to raise it.
 */
export interface FieldLimit {
  field: string;
  kind: 'entries' | 'number';
  max: number;
  setting: string;
}

/** A field over its limit: what was received, and the limit it broke. */
export interface FieldLimitProblem {
  field: string;
  kind: 'list' | 'dictionary' | 'number';
  max: number;
  received: number;
  setting: string;
}

/**
 * The fields of `body` over their limits, in the order of `limits`. Run before the schema, so a body with
 * 100,000 `files` is refused after counting them rather than validated entry by entry. Fields of another type
 * are left to the schema, which reports them.
 *
 * @example
 * fieldLimitProblems({ cells: ['1', '2'] }, [{ field: 'cells', kind: 'entries', max: 1, setting: 'X' }]);
 * // [{ field: 'cells', kind: 'list', max: 1, received: 2, setting: 'X' }]
 */
export function fieldLimitProblems(body: unknown, limits: readonly FieldLimit[]): FieldLimitProblem[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [];
  const fields = body as Record<string, unknown>;
  const problems: FieldLimitProblem[] = [];
  for (const { field, kind, max, setting } of limits) {
    if (!Object.hasOwn(fields, field)) continue;
    const value = fields[field];
    if (kind === 'number') {
      if (typeof value === 'number' && value > max)
        problems.push({ field, kind: 'number', max, received: value, setting });
    } else if (Array.isArray(value)) {
      if (value.length > max) problems.push({ field, kind: 'list', max, received: value.length, setting });
    } else if (typeof value === 'object' && value !== null) {
      const entries = Object.keys(value).length;
      if (entries > max) problems.push({ field, kind: 'dictionary', max, received: entries, setting });
    }
  }
  return problems;
}

/**
 * The fields over their entry limits, from the counts a scan of the body's text found (see `scanJson`): a body
 * with 100,000 `files` is refused without being parsed.
 *
 * @example
 * const scan = scanJson('{"cells": ["1", "2"]}', { maxDepth: 64, maxValues: 100 });
 * countedLimitProblems(scan.entries, [{ field: 'cells', kind: 'entries', max: 1, setting: 'X' }]);
 * // [{ field: 'cells', kind: 'list', max: 1, received: 2, setting: 'X' }]
 */
export function countedLimitProblems(
  entries: ReadonlyMap<string, FieldEntries>,
  limits: readonly FieldLimit[],
): FieldLimitProblem[] {
  const problems: FieldLimitProblem[] = [];
  for (const { field, kind, max, setting } of limits) {
    const counted = kind === 'entries' ? entries.get(field) : undefined;
    if (counted && counted.count > max)
      problems.push({ field, kind: counted.kind, max, received: counted.count, setting });
  }
  return problems;
}
