import { createHash } from 'node:crypto';

/**
 * The first int of the two-int advisory-lock keys `(namespace, n)` a limiter key uses: n = 0 is its FIFO gate
 * and n = 1..limit are its slots. It is the first 31 bits of SHA-256 of the key name, so every process derives
 * the same one and it stays positive (pg_locks shows it as the oid `classid`); `limiter_key.lock_namespace`
 * records it and its unique index turns a collision into an error rather than shared slots.
 *
 * @example
 * lockNamespace('run_code'); // the same number in every process, every time
 */
export function lockNamespace(key: string): number {
  return createHash('sha256').update(key).digest().readUInt32BE(0) >>> 1;
}
