import { describe, expect, it } from 'vitest';
import { storableJson, storableText } from '../src/storable';

describe('storableText', () => {
  it('turns NUL and unpaired surrogates into U+FFFD and keeps pairs', () => {
    expect(storableText('a\0b')).toBe('a\uFFFDb');
    expect(storableText('\uD83D\uDE00 \uD83D \uDE00')).toBe('\uD83D\uDE00 \uFFFD \uFFFD');
  });

  it('returns text that needs nothing as it is', () => {
    const text = 'plain \\u0000 text';
    expect(storableText(text)).toBe(text);
  });
});

describe('storableJson', () => {
  it('cleans strings at any depth, keys included, and leaves other values alone', () => {
    const when = new Date(0);
    expect(storableJson({ 'k\0': ['\uDC00', { n: 1, ok: true, none: null, when }] })).toEqual({
      'k\uFFFD': ['\uFFFD', { n: 1, ok: true, none: null, when }],
    });
  });
});
