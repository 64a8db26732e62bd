import { describe, expect, it } from 'vitest';
import { uuidV7 } from '../src/uuid-v7';

describe('uuidV7', () => {
  it('is a version 7 UUID that starts with the time in milliseconds', () => {
    const now = Date.UTC(2026, 10, 24, 8, 30);
    const id = uuidV7(now);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replace('-', '').slice(0, 12), 16)).toBe(now);
  });

  it('differs between ids of the same millisecond, and orders by time', () => {
    const ids = Array.from({ length: 1000 }, () => uuidV7(1_000));
    expect(new Set(ids).size).toBe(1000);
    expect(uuidV7(1_000) < uuidV7(1_001)).toBe(true);
  });
});
