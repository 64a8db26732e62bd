import { describe, expect, it } from 'vitest';
import { describeTooDeep, jsonTooDeep, scanJson } from './json-depth';

describe('jsonTooDeep', () => {
  it('accepts a text nested exactly to the limit', () => {
    expect(jsonTooDeep('{"a": [[1, {"b": 2}]]}', 4)).toBeUndefined();
    expect(jsonTooDeep('1', 1)).toBeUndefined();
  });

  it('names the bracket that opens one level too many', () => {
    expect(jsonTooDeep('{"a": [[1]]}', 2)).toEqual({ position: 7, limit: 2 });
    expect(jsonTooDeep('['.repeat(100_000) + ']'.repeat(100_000), 64)).toEqual({ position: 64, limit: 64 });
  });

  it('counts siblings at their own depth, not as nesting', () => {
    expect(jsonTooDeep(`[${'[1],'.repeat(10_000)}[1]]`, 2)).toBeUndefined();
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonTooDeep(JSON.stringify({ code: '[[[[{{{{' }), 1)).toBeUndefined();
    expect(jsonTooDeep(JSON.stringify({ code: 'say "[[[[" \\"' }), 1)).toBeUndefined();
    expect(jsonTooDeep(JSON.stringify(['\\', [[1]]]), 2)).toEqual({ position: 7, limit: 2 });
  });

  it('leaves malformed text to JSON.parse', () => {
    expect(jsonTooDeep('{"a": "[[[[', 1)).toBeUndefined();
    expect(jsonTooDeep(']]]][', 1)).toBeUndefined();
  });

  it('is described with the limit, its setting and the position', () => {
    expect(describeTooDeep({ position: 64, limit: 64 })).toBe(
      'the JSON nests deeper than 64 levels (FUSEBOX_MAX_JSON_DEPTH) at position 64',
    );
  });
});

describe('scanJson', () => {
  it("counts the entries of each top-level field's array or object", () => {
    const text = JSON.stringify({
      code: 'a, b',
      files: { a: '1', 'b,c': '2' },
      cells: ['x', [1, 2], { y: 1 }],
      e: [],
      n: 1,
    });
    expect(Object.fromEntries(scanJson(text, 64).entries)).toEqual({
      files: { kind: 'dictionary', count: 2 },
      cells: { kind: 'list', count: 3 },
      e: { kind: 'list', count: 0 },
    });
    expect(scanJson('{"a": [ 1 ], "b": [[]], "c\\u0021": {"k": {}}}', 64).entries).toEqual(
      new Map([
        ['a', { kind: 'list', count: 1 }],
        ['b', { kind: 'list', count: 1 }],
        ['c!', { kind: 'dictionary', count: 1 }],
      ]),
    );
  });

  it('counts 100,000 entries without parsing them', () => {
    const text = JSON.stringify({ fetch_files: Array.from({ length: 100_000 }, (_, i) => `f${i}`) });
    expect(scanJson(text, 64).entries.get('fetch_files')).toEqual({ kind: 'list', count: 100_000 });
  });
});
