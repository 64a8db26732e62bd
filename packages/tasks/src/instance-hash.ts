import { createHash } from 'node:crypto';
import { z } from 'zod';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * The canonical decimal form of an instance_hash given as digits or as an integer (verl sends
 * `instance_id.item()`, a Python int, so it arrives as a JSON number). Undefined unless it is an int64: verl
 * keeps instance ids in an int64 tensor.
 */
export function canonicalInstanceHash(value: string | number): string | undefined {
  let parsed: bigint;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) return undefined;
    parsed = BigInt(value);
  } else {
    if (!/^-?\d{1,19}$/.test(value.trim())) return undefined;
    parsed = BigInt(value.trim());
  }
  return parsed >= INT64_MIN && parsed <= INT64_MAX ? parsed.toString() : undefined;
}

/**
 * The instance_hash of a task whose id is not a number: the first 63 bits of SHA-256 of the id, in decimal.
 * In Python: `int.from_bytes(hashlib.sha256(id.encode()).digest()[:8], "big") & (2**63 - 1)`.
 *
 * @example
 * deriveInstanceHash('two-sum'); // the same decimal string on every machine
 */
export function deriveInstanceHash(id: string): string {
  const digest = createHash('sha256').update(id, 'utf8').digest();
  return (digest.readBigUInt64BE(0) & INT64_MAX).toString();
}

/** An instance_hash in a request or a task file: digits or an integer, canonicalised to decimal digits. */
export const instanceHashSchema = z.union([z.string(), z.number()]).transform((value, context) => {
  const hash = canonicalInstanceHash(value);
  if (hash === undefined) {
    context.addIssue({ code: 'custom', message: 'expected an int64, as digits or a number' });
    return z.NEVER;
  }
  return hash;
});
