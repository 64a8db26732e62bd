import { describe, expect, it } from 'vitest';
import { describeTooDeep, jsonLimitProblem, scanJson } from './json-scan';

const UNLIMITED = { maxDepth: Infinity, maxValues: Infinity };
const jsonTooDeep = (text: string, maxDepth: number) => scanJson(text, { ...UNLIMITED, maxDepth }).tooDeep;
const jsonTooMany = (text: string, maxValues: number) => scanJson(text, { ...UNLIMITED, maxValues }).tooMany;

describe('the depth scan', () => {
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

describe('the value count', () => {
  it('counts every value and key once, whatever its kind or length', () => {
    // The object, 3 keys, the array, 123, -4.5e6, true, null, "x y", false and the last object: 12.
    const text = '{"a": [123, -4.5e6, true, null, "x y"], "b" : false, "c":{}}';
    expect(jsonTooMany(text, 12)).toBeUndefined();
    expect(jsonTooMany(text, 11)).toEqual({ position: text.lastIndexOf('{}'), limit: 11 });
    expect(jsonTooMany('[1,2]', 2)).toEqual({ position: 3, limit: 2 });
  });

  it('passes megabytes of whitespace, digits and escapes in a few native calls, not a stack overflow', () => {
    const escapes = JSON.stringify({ code: '"\\'.repeat(4_000_000), n: 1 });
    expect(scanJson(escapes, { maxDepth: 64, maxValues: 5 })).toEqual({ entries: new Map() });
    expect(jsonTooMany(escapes, 4)).toEqual({ position: escapes.length - 2, limit: 4 });
    expect(jsonTooMany(`[${' '.repeat(8_000_000)}${'1'.repeat(8_000_000)} , 2]`, 2)).toEqual({
      position: 16_000_004,
      limit: 2,
    });
    // Never closed: the last quote is escaped.
    expect(jsonTooMany('["a\\"', 2)).toBeUndefined();
  });

  it('stops at more punctuation than that many values could need', () => {
    // Values, commas, colons and closing brackets: at most 4 × 10 + 1 tokens for 10 values.
    expect(jsonTooMany(','.repeat(16_000_000), 10)).toEqual({ position: 41, limit: 10 });
    expect(jsonTooMany(` ${': '.repeat(8_000_000)}`, 10)).toEqual({ position: 83, limit: 10 });
    // A text of 10 values with every separator and closer it can hold is not refused.
    expect(jsonTooMany('{"a": [[], {}], "b": {"c": [1]}}', 10)).toBeUndefined();
  });

  it('counts nothing inside strings, escaped quotes included', () => {
    expect(jsonTooMany(JSON.stringify(['1, 2, [3], {"k": 4}', 'say \\"[1, 2]\\"']), 3)).toBeUndefined();
  });

  it('names the first value past the limit, and stops there', () => {
    const text = JSON.stringify({ code: 'x', files: Array.from({ length: 5000 }, () => ({})) });
    const scan = scanJson(text, { maxDepth: 64, maxValues: 100 });
    expect(scan.tooMany).toEqual({ position: text.indexOf('{}') + 3 * 95, limit: 100 });
    expect(scan.entries.get('files')).toEqual({ kind: 'list', count: 96 });
  });
});

describe('jsonLimitProblem', () => {
  it('names the limit a text goes past, depth first, with its setting', () => {
    const limits = { maxDepth: 2, maxValues: 3 };
    expect(jsonLimitProblem('[[1]]', limits)).toBeUndefined();
    expect(jsonLimitProblem('[[[1]]]', limits)).toBe(describeTooDeep({ position: 2, limit: 2 }));
    expect(jsonLimitProblem('[1, 2, 3]', limits)).toBe(
      'the JSON holds more than 3 values and keys (FUSEBOX_MAX_JSON_VALUES); the first past the limit is at position 7',
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
    expect(Object.fromEntries(scanJson(text, UNLIMITED).entries)).toEqual({
      files: { kind: 'dictionary', count: 2 },
      cells: { kind: 'list', count: 3 },
      e: { kind: 'list', count: 0 },
    });
    expect(scanJson('{"a": [ 1 ], "b": [[]], "c\\u0021": {"k": {}}}', UNLIMITED).entries).toEqual(
      new Map([
        ['a', { kind: 'list', count: 1 }],
        ['b', { kind: 'list', count: 1 }],
        ['c!', { kind: 'dictionary', count: 1 }],
      ]),
    );
  });

  it('counts 100,000 entries without parsing them', () => {
    const text = JSON.stringify({ fetch_files: Array.from({ length: 100_000 }, (_, i) => `f${i}`) });
    expect(scanJson(text, UNLIMITED).entries.get('fetch_files')).toEqual({ kind: 'list', count: 100_000 });
  });
});
