import { describe, expect, it } from 'vitest';
import { matchRanges } from '../src/match-ranges';
import { parseSampleQuery, shownText } from '../src/sample-query';
import { words } from '../src/search-terms';
import { TermPostings } from '../src/term-postings';

/** The words the index keeps for each sample text, with the lines that hold them. */
function indexed(...samples: string[][]): [string, number[]][] {
  const postings = new TermPostings();
  for (const [index, texts] of samples.entries()) postings.add(index + 1, texts);
  return postings.entries();
}

describe('search terms', () => {
  it('are the distinct lowercase words, split at punctuation, each with its lines in order', () => {
    expect(indexed(['Print(total_pay) print', 'Naïve 東京 x2'], ['PAY day'])).toEqual([
      ['day', [2]],
      ['naïve', [1]],
      ['pay', [1, 2]],
      ['print', [1]],
      ['total', [1]],
      ['x2', [1]],
      ['東京', [1]],
    ]);
  });

  it('read code inside a JSON-encoded tool call as code (\\n is a line break, not part of a word)', () => {
    const call = '{"code": "x = 1\\nprint(x)\\tdone\\u00e9"}';
    expect(indexed([call]).map(([term]) => term)).toEqual(['1', 'code', 'done', 'print', 'x']);
    expect(words(call)).toContain('print');
    const [range] = matchRanges(call, parseSearchQuery('print'));
    expect(call.slice(range![0], range![1])).toBe('print');
  });

  it('leave out runs longer than anyone types (base64, hashes of hashes)', () => {
    expect(indexed([`ok ${'a'.repeat(65)}`, 'a'.repeat(64)])).toEqual([
      ['a'.repeat(64), [1]],
      ['ok', [1]],
    ]);
  });

  it('merge words that lowercase alike though hashed apart (non-ASCII capitals)', () => {
    expect(indexed(['École'], ['école', 'ÉCOLE'])).toEqual([['école', [1, 2]]]);
  });

  it('stay exact over more words than the id table first holds', () => {
    const many = Array.from({ length: 5000 }, (_, index) => `w${index}`);
    const entries = indexed([many.join(' ')], [many.slice(0, 10).join(' ')]);
    expect(entries).toHaveLength(5000);
    expect(new Map(entries).get('w3')).toEqual([1, 2]);
    expect(new Map(entries).get('w4999')).toEqual([1]);
  });
});

const parseSearchQuery = (text: string) => shownText(parseSampleQuery(text, { knownFields: new Set() })!);

describe('a search query', () => {
  it('needs every word, and text with punctuation verbatim', () => {
    expect(parseSearchQuery('ZeroDivisionError "final answer" print(x')).toEqual({
      terms: ['zerodivisionerror', 'final', 'answer', 'print', 'x'],
      phrases: ['final answer', 'print(x'],
    });
  });

  it('marks the words a term begins, whole, and phrases wherever they are', () => {
    const text = 'Total: totally total_pay subtotal';
    const ranges = matchRanges(text, parseSearchQuery('total'));
    expect(ranges.map(([start, end]) => text.slice(start, end))).toEqual(['Total', 'totally', 'total']);
    const code = 'x = NameError(1)';
    const [call] = matchRanges(code, parseSearchQuery('"error(1"'));
    expect(code.slice(call![0], call![1])).toBe('Error(1');
  });
});
