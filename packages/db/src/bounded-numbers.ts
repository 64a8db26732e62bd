import { z } from 'zod';

/** The largest value of a Postgres `integer` column (steps, lines, offsets): beyond it the database throws. */
export const PG_INT_MAX = 2 ** 31 - 1;

/** The last millisecond of the year 9999: later (or negative) times are outside what a timestamp column holds. */
export const MAX_EPOCH_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * An integer a Postgres `integer` column holds, at least `min`.
 *
 * @example
 * const step = pgInt(0); // 0 to 2147483647
 */
export function pgInt(min: number = -PG_INT_MAX - 1) {
  return z.int().min(min).max(PG_INT_MAX);
}

/**
 * A time as milliseconds since the epoch, from 1970 to the end of the year 9999.
 *
 * @example
 * const from = epochMs().optional();
 */
export function epochMs() {
  return z.number().min(0).max(MAX_EPOCH_MS);
}

/**
 * A date (an ISO string or milliseconds, coerced) from 1970 to the end of the year 9999.
 *
 * @example
 * const createdAfter = epochDate().optional();
 */
export function epochDate() {
  return z.coerce.date().min(new Date(0)).max(new Date(MAX_EPOCH_MS));
}
