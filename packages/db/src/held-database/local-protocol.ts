// How processes on the same machine reach an embedded database that a running `fusebox serve` holds: the routes
// under /v1/local/ answer only a caller that presents the secret from the data directory's server record.

/** The header carrying the secret of the data directory's server record (server-record.ts). */
export const LOCAL_TOKEN_HEADER = 'x-fusebox-local-token';

/** Runs one of Prisma's raw queries read-only on the server's session (held-prisma-client.ts). */
export const LOCAL_QUERY_PATH = '/v1/local/query';

/**
 * JSON for query arguments and result values: bigints become strings (as `pg` gives int8), bytes become
 * `{"$bytes": base64}`.
 */
export function encodeValues(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return { $bytes: Buffer.from(value).toString('base64') };
  return value;
}

/** The inverse of `encodeValues` for bytes (bigints stay strings, which Prisma accepts for Int64). */
export function decodeValues(_key: string, value: unknown): unknown {
  const bytes = (value as { $bytes?: unknown } | null)?.$bytes;
  return typeof bytes === 'string' ? new Uint8Array(Buffer.from(bytes, 'base64')) : value;
}
