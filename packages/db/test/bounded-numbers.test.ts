import { describe, expect, it } from 'vitest';
import { MAX_EPOCH_MS, PG_INT_MAX, epochDate, epochMs, pgInt } from '../src/bounded-numbers';

describe('bounded numbers', () => {
  it('pgInt holds what a Postgres integer holds, and no more', () => {
    expect(pgInt().safeParse(PG_INT_MAX).success).toBe(true);
    expect(pgInt().safeParse(-PG_INT_MAX - 1).success).toBe(true);
    for (const value of [PG_INT_MAX + 1, -PG_INT_MAX - 2, 1e300, 1.5])
      expect(pgInt().safeParse(value).success, String(value)).toBe(false);
    expect(pgInt(0).safeParse(-1).success).toBe(false);
  });

  it('epochMs and epochDate stay between 1970 and the year 9999', () => {
    expect(epochMs().safeParse(MAX_EPOCH_MS).success).toBe(true);
    for (const value of [-1, MAX_EPOCH_MS + 1, 1e300]) {
      expect(epochMs().safeParse(value).success, String(value)).toBe(false);
      expect(epochDate().safeParse(value).success, String(value)).toBe(false);
    }
    expect(epochDate().safeParse('2026-01-01T00:00:00Z').success).toBe(true);
  });
});
