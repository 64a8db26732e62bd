import { describe, expect, it } from 'vitest';
import { type FieldLimit, countedLimitProblems, fieldLimitProblems } from './field-limits';
import { scanJson } from './json-scan';

const LIMITS: FieldLimit[] = [
  { field: 'run_timeout', kind: 'number', max: 3600, setting: 'FUSEBOX_MAX_TIMEOUT_S' },
  { field: 'files', kind: 'entries', max: 2, setting: 'FUSEBOX_MAX_FILES' },
  { field: 'fetch_files', kind: 'entries', max: 2, setting: 'FUSEBOX_MAX_FILES' },
];

describe('fieldLimitProblems', () => {
  it('accepts fields at their limits', () => {
    expect(
      fieldLimitProblems({ run_timeout: 3600, files: { a: '', b: '' }, fetch_files: ['a', 'b'] }, LIMITS),
    ).toEqual([]);
  });

  it('names each field over its limit with what it received, in the order of the limits', () => {
    expect(
      fieldLimitProblems(
        { fetch_files: ['a', 'b', 'c'], files: { a: '', b: '', c: '' }, run_timeout: 1e300 },
        LIMITS,
      ),
    ).toEqual([
      { field: 'run_timeout', kind: 'number', max: 3600, received: 1e300, setting: 'FUSEBOX_MAX_TIMEOUT_S' },
      { field: 'files', kind: 'dictionary', max: 2, received: 3, setting: 'FUSEBOX_MAX_FILES' },
      { field: 'fetch_files', kind: 'list', max: 2, received: 3, setting: 'FUSEBOX_MAX_FILES' },
    ]);
  });

  it('leaves fields of another type, and bodies that are not objects, to the schema', () => {
    expect(fieldLimitProblems({ run_timeout: '99999', files: 'x', fetch_files: null }, LIMITS)).toEqual([]);
    expect(fieldLimitProblems([1, 2, 3], LIMITS)).toEqual([]);
    expect(fieldLimitProblems(undefined, LIMITS)).toEqual([]);
  });

  it('does not read inherited keys', () => {
    expect(fieldLimitProblems(Object.create({ run_timeout: 1e9 }), LIMITS)).toEqual([]);
  });
});

describe('countedLimitProblems', () => {
  it('judges entry limits from the counts of a scan, leaving numbers to the parsed body', () => {
    const text = JSON.stringify({ run_timeout: 1e300, files: { a: '', b: '', c: '' }, fetch_files: ['a'] });
    expect(
      countedLimitProblems(scanJson(text, { maxDepth: 64, maxValues: 1_000_000 }).entries, LIMITS),
    ).toEqual([{ field: 'files', kind: 'dictionary', max: 2, received: 3, setting: 'FUSEBOX_MAX_FILES' }]);
  });
});
