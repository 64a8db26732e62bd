import { describe, expect, it } from 'vitest';
import { HashPairIds } from '../src/hash-pair-ids';

describe('HashPairIds', () => {
  it('gives each pair one dense id, kept as the table grows', () => {
    const ids = new HashPairIds();
    const pairs = Array.from({ length: 10_000 }, (_, index) => [index % 97, Math.imul(index, 0x9e3779b1)]);
    expect(pairs.map(([high, low]) => ids.idOf(high!, low!))).toEqual(pairs.map((_, index) => index));
    expect(ids.size).toBe(10_000);
    expect(pairs.map(([high, low]) => ids.idOf(high!, low!))).toEqual(pairs.map((_, index) => index));
    expect(ids.size).toBe(10_000);
  });

  it('tells pairs apart by both halves', () => {
    const ids = new HashPairIds();
    expect([ids.idOf(1, 2), ids.idOf(2, 1), ids.idOf(1, 3), ids.idOf(1, 2)]).toEqual([0, 1, 2, 0]);
  });
});
