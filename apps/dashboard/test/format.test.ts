import { describe, expect, it } from 'vitest';
import { formatCount } from '../src/components/format';

describe('formatCount', () => {
  it('says one thing in the singular, and a capped count in the plural', () => {
    expect(formatCount(1, 'match', 'matches')).toBe('1 match');
    expect(formatCount(0, 'match', 'matches')).toBe('0 matches');
    expect(formatCount(12345, 'sample', 'samples')).toBe('12,345 samples');
    expect(formatCount(1000, 'match', 'matches', { capped: true })).toBe('1,000+ matches');
  });
});
