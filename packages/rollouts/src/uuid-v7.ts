import { randomUUID } from 'node:crypto';

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. The importer writes ids itself
 * because COPY bypasses Prisma, which fills `@default(uuid(7))` on the client; time-ordered ids keep the
 * primary-key index append-only during a bulk load.
 *
 * The random bits come from `randomUUID()`, which draws from a cached pool (a fresh `randomBytes(16)` per id
 * showed in an import's profile); its variant bits are v7's too, so only the time and the version change.
 */
export function uuidV7(now: number = Date.now()): string {
  const time = now.toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8)}-7${randomUUID().slice(15)}`;
}
