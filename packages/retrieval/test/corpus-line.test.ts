import { describe, expect, it } from 'vitest';
import { parseCorpusLine } from '../src/corpus-line';

describe('a corpus line', () => {
  it("reads Search-R1's format, integer ids as strings, and ignores other keys", () => {
    expect(
      parseCorpusLine('{"id": "7", "contents": "\\"Paris\\"\\nCapital of France.", "title": "x"}'),
    ).toEqual({
      id: '7',
      contents: '"Paris"\nCapital of France.',
    });
    expect(parseCorpusLine('{"id": 12, "contents": ""}')).toEqual({ id: '12', contents: '' });
  });

  it('keeps a passage holding NUL, which Postgres text cannot store, with U+FFFD in its place', () => {
    expect(parseCorpusLine('{"id": "a\\u0000", "contents": "x\\u0000y"}')).toEqual({
      id: 'a\ufffd',
      contents: 'x\ufffdy',
    });
  });

  it.each([
    ['[1, 2]', 'expected a JSON object with "id" and "contents"'],
    ['{"contents": "x"}', 'missing "id"'],
    ['{"id": 1.5, "contents": "x"}', '"id" must be a string or an integer, not 1.5'],
    ['{"id": "1", "contents": ["x"]}', '"contents" must be a string, not object'],
  ])('names the problem with %s', (line, problem) => {
    expect(parseCorpusLine(line)).toEqual({ problem });
  });
});
