// Up-front checks shared by both limiters: bad options throw a TypeError that says what was expected, before
// anything waits or connects.

/** The key names the limiter cluster-wide; it is stored in `limiter_key.key`. */
export function checkKey(key: unknown): string {
  if (typeof key !== 'string' || key.trim() === '') {
    throw new TypeError(`expected key to be a non-empty string, got ${JSON.stringify(key)}`);
  }
  return key;
}

export function checkLimit(limit: unknown): number {
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit <= 0) {
    throw new TypeError(`expected limit to be a positive integer, got ${show(limit)}`);
  }
  return limit;
}

/** A wait bound in milliseconds: 0 or more, Infinity for none; undefined keeps the fallback. */
export function checkTimeout(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
    throw new TypeError(
      `expected ${name} to be a number of milliseconds >= 0 (or Infinity), got ${show(value)}`,
    );
  }
  return value;
}

/** Starts per second for the start-rate cap; undefined means no cap. */
export function checkRate(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new TypeError(`expected maxStartsPerSecond to be a positive number, got ${show(value)}`);
  }
  return value;
}

export function checkPositiveInteger(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new TypeError(`expected ${name} to be a positive integer, got ${show(value)}`);
  }
  return value;
}

/** A value as an error message quotes it: numbers as they print (NaN, Infinity), anything else as JSON. */
function show(value: unknown): string {
  return typeof value === 'number' ? String(value) : JSON.stringify(value);
}
