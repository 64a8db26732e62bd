import { randomBytes } from 'node:crypto';

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. The importer writes ids itself
 * because COPY bypasses Prisma, which fills `@default(uuid(7))` on the client; time-ordered ids keep the
 * primary-key index append-only during a bulk load.
 */
export function uuidV7(now: number = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
