import { describe, expect, it } from 'vitest';
import { type DiffLine, lineDiff } from '../src/rollouts/line-diff';

/** Applies a diff's kept and added lines: what B must be; its kept and removed lines: what A must be. */
const sides = (diff: DiffLine[]) => ({
  a: diff.filter((line) => line.kind !== 'added').map((line) => line.text),
  b: diff.filter((line) => line.kind !== 'removed').map((line) => line.text),
  edits: diff.filter((line) => line.kind !== 'same').length,
});

describe('lineDiff', () => {
  it('marks one changed line between equal ones', () => {
    expect(lineDiff(['a', 'b', 'c'], ['a', 'x', 'c'])).toEqual([
      { kind: 'same', text: 'a' },
      { kind: 'removed', text: 'b' },
      { kind: 'added', text: 'x' },
      { kind: 'same', text: 'c' },
    ]);
  });

  it('finds a shortest edit script that rebuilds both texts', () => {
    const a = 'the quick brown fox jumps over the lazy dog'.split(' ');
    const b = 'a quick brown cat jumps over the dog today'.split(' ');
    const diff = lineDiff(a, b)!;
    // the→a, fox→cat, lazy removed, today added.
    expect(sides(diff)).toEqual({ a, b, edits: 6 });
    // Randomised texts over a small alphabet: both sides are always rebuilt.
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 4;
    for (let round = 0; round < 50; round++) {
      const left = Array.from({ length: 30 }, () => String(next()));
      const right = Array.from({ length: 25 }, () => String(next()));
      const result = sides(lineDiff(left, right)!);
      expect([result.a, result.b]).toEqual([left, right]);
    }
  });

  it('handles empty sides, and gives up past its edit budget', () => {
    expect(lineDiff([], ['x'])).toEqual([{ kind: 'added', text: 'x' }]);
    expect(lineDiff(['x'], [])).toEqual([{ kind: 'removed', text: 'x' }]);
    expect(lineDiff([], [])).toEqual([]);
    const many = Array.from({ length: 100 }, (_, index) => `a${index}`);
    const other = Array.from({ length: 100 }, (_, index) => `b${index}`);
    expect(lineDiff(many, other, 50)).toBeNull();
  });
});
