import { describe, expect, it } from 'vitest';
import { matchRanges } from '../../src/rollouts/match-ranges';
import { parseSearchQuery } from '../../src/rollouts/search-query';
import { searchTerms, words } from '../../src/rollouts/search-terms';

describe('search terms', () => {
  it('are the distinct lowercase words, split at punctuation', () => {
    expect(searchTerms(['Print(total_pay) print', 'Naïve 東京 x2'])).toEqual([
      'print',
      'total',
      'pay',
      'naïve',
      '東京',
      'x2',
    ]);
  });

  it('read code inside a JSON-encoded tool call as code (\\n is a line break, not part of a word)', () => {
    const call = '{"code": "x = 1\\nprint(x)\\tdone\\u00e9"}';
    expect(searchTerms([call])).toEqual(['code', 'x', '1', 'print', 'done']);
    expect(words(call)).toContain('print');
    const [range] = matchRanges(call, parseSearchQuery('print'));
    expect(call.slice(range![0], range![1])).toBe('print');
  });

  it('leave out runs longer than anyone types (base64, hashes of hashes)', () => {
    expect(searchTerms([`ok ${'a'.repeat(65)}`])).toEqual(['ok']);
  });
});

describe('a search query', () => {
  it('needs every word, and text with punctuation verbatim', () => {
    expect(parseSearchQuery('ZeroDivisionError "final answer" print(x')).toEqual({
      terms: ['zerodivisionerror', 'final', 'answer', 'print', 'x'],
      phrases: ['final answer', 'print(x'],
    });
  });

  it('marks whole words only, and phrases wherever they are', () => {
    const text = 'Total: totally total_pay';
    const ranges = matchRanges(text, parseSearchQuery('total'));
    expect(ranges.map(([start, end]) => text.slice(start, end))).toEqual(['Total', 'total']);
  });
});
