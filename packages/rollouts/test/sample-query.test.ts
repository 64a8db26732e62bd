import { describe, expect, it } from 'vitest';
import { parseSampleQuery, requiredWords, SampleQueryError, shownText } from '../src/sample-query';

const parse = (text: string) => parseSampleQuery(text, { knownFields: new Set(['acc', 'data_source']) });

describe('the query box', () => {
  it('reads words, phrases and punctuated text as the plain search did', () => {
    expect(parse('ZeroDivisionError "final answer" print(x')).toEqual({
      kind: 'and',
      nodes: [
        { kind: 'word', word: 'zerodivisionerror' },
        { kind: 'word', word: 'final' },
        { kind: 'word', word: 'answer' },
        { kind: 'phrase', text: 'final answer' },
        { kind: 'word', word: 'print' },
        { kind: 'word', word: 'x' },
        { kind: 'phrase', text: 'print(x' },
      ],
    });
    expect(parse('f(x)')).toMatchObject({ kind: 'and', nodes: [{}, {}, { kind: 'phrase', text: 'f(x)' }] });
  });

  it('binds NOT tighter than AND, and AND tighter than OR', () => {
    expect(parse('a b OR NOT c')).toEqual({
      kind: 'or',
      nodes: [
        {
          kind: 'and',
          nodes: [
            { kind: 'word', word: 'a' },
            { kind: 'word', word: 'b' },
          ],
        },
        { kind: 'not', node: { kind: 'word', word: 'c' } },
      ],
    });
    expect(parse('a AND (b OR -c)')).toEqual({
      kind: 'and',
      nodes: [
        { kind: 'word', word: 'a' },
        {
          kind: 'or',
          nodes: [
            { kind: 'word', word: 'b' },
            { kind: 'not', node: { kind: 'word', word: 'c' } },
          ],
        },
      ],
    });
    // Lower-case operators are words to find.
    expect(parse('not or and')).toMatchObject({
      kind: 'and',
      nodes: [{ word: 'not' }, { word: 'or' }, { word: 'and' }],
    });
  });

  it('reads comparisons of builtin numbers and of the run’s extra fields, and leaves other text alone', () => {
    const field = (
      name: { builtin: string } | { extra: string },
      op: string,
      value: string,
      pattern = false,
    ) => ({
      kind: 'field',
      field: name,
      op,
      value,
      pattern,
    });
    expect(parse('score<=0')).toEqual(field({ builtin: 'score' }, '<=', '0'));
    expect(parse('length>2000')).toEqual(field({ builtin: 'chars' }, '>', '2000'));
    expect(parse('acc:true')).toEqual(field({ extra: 'acc' }, '=', 'true'));
    expect(parse('data_source:"openai/gsm8k"')).toEqual(field({ extra: 'data_source' }, '=', 'openai/gsm8k'));
    expect(parse('extra.pred!=7')).toEqual(field({ extra: 'pred' }, '!=', '7'));
    // A star makes a pattern; quoted, it is a star.
    expect(parse('acc:t*')).toEqual(field({ extra: 'acc' }, '=', 't*', true));
    expect(parse('acc:"t*"')).toEqual(field({ extra: 'acc' }, '=', 't*'));
    // `~` finds a part anywhere: the pattern with a star at each end, quoted or not.
    expect(parse('data_source~gsm')).toEqual(field({ extra: 'data_source' }, '=', '*gsm*', true));
    expect(parse('data_source~"open ai"')).toEqual(field({ extra: 'data_source' }, '=', '*open ai*', true));
    // Not a field of this run: code to find.
    expect(parse('x=1')).toEqual({
      kind: 'and',
      nodes: [
        { kind: 'word', word: 'x' },
        { kind: 'word', word: '1' },
        { kind: 'phrase', text: 'x=1' },
      ],
    });
  });

  it('names what is wrong and where', () => {
    const error = (text: string) => {
      try {
        parse(text);
      } catch (caught) {
        expect(caught).toBeInstanceOf(SampleQueryError);
        return (caught as Error).message;
      }
      throw new Error(`${text} parsed`);
    };
    expect(error('(odd')).toBe('a “(” is never closed at column 1 (“(”)');
    expect(error('odd)')).toBe('a “)” without its “(” at column 4 (“)”)');
    expect(error('odd OR')).toBe('OR needs a term after it at the end of the query');
    expect(error('NOT')).toBe('NOT needs a term after it at column 1 (“NOT”)');
    expect(error('AND odd')).toBe('AND needs a term on each side at column 1 (“AND”)');
    expect(error('score>high')).toBe('“score>high” at column 1: score compares with a number');
    expect(error('acc:')).toBe('“acc:” at column 1 compares with nothing');
    expect(error('acc~')).toBe('“acc~” at column 1 compares with nothing');
    expect(error('score~1')).toBe('“score~1” at column 1: ~ finds text, and score is a number');
    expect(error('"open')).toBe('a quote is never closed at column 1');
    expect(error(`${'('.repeat(40)}a${')'.repeat(40)}`)).toMatch(/^more than 32 nested/);
    expect(error(Array.from({ length: 31 }, (_, index) => `w${index}`).join(' '))).toMatch(/more than 30/);
  });

  it('finds nothing to search in punctuation alone', () => {
    expect(parse('')).toBeNull();
    expect(parse('=> ;')).toBeNull();
  });

  it('tells the words every match needs, and what a match shows', () => {
    const query = parse('answer (odd OR even answer) NOT late "x y"')!;
    expect(requiredWords(query).sort()).toEqual(['answer', 'x', 'y']);
    expect(shownText(query)).toEqual({ terms: ['answer', 'odd', 'even', 'x', 'y'], phrases: ['x y'] });
  });
});
