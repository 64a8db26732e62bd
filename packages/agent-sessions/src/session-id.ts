import { randomBytes } from 'node:crypto';
import { z } from 'zod';

const INT63_MASK = 2n ** 63n - 1n;

/**
 * A new sid: 63 random bits as a decimal string, never 0. verl does `int(sid)` into an int64 tensor, so a sid
 * must be a positive int64; 63 random bits make collisions across restarts and machines negligible (the
 * database's primary key catches the rest).
 */
export function newSessionId(): string {
  for (;;) {
    const value = randomBytes(8).readBigUInt64BE(0) & INT63_MASK;
    if (value > 0n) return value.toString();
  }
}

/**
 * A sid in a request: digits or a number (verl sends `sid.item()`, a Python int), canonicalised to digits.
 * Numbers past 2^53 arrive as digits already: the routes parse JSON with parseJsonExact.
 */
export const sidSchema = z.union([z.string(), z.number()]).transform((value, context) => {
  const digits =
    typeof value === 'number' ? (Number.isSafeInteger(value) ? String(value) : '') : value.trim();
  if (/^\d{1,19}$/.test(digits)) {
    const sid = BigInt(digits);
    if (sid > 0n && sid <= INT63_MASK) return sid.toString();
  }
  context.addIssue({ code: 'custom', message: 'expected a positive int64, as digits or a number' });
  return z.NEVER;
});
