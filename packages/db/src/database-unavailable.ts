/**
 * SQLSTATE classes and codes that mean the database, not the statement, is the problem: 08 connection
 * exceptions, 53 insufficient resources, 57 operator intervention (57014 is a statement timeout, 57P01-03 a
 * server shutting down, crashed or starting).
 */
const UNAVAILABLE_SQLSTATE = /^(08|53|57)/;

/** Prisma's own codes for the same: server unreachable, timed out, connection closed, pool or server full. */
const UNAVAILABLE_PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2037']);

/** What `@prisma/adapter-pg` reports as `driverAdapterError.cause.kind` when it never got an answer. */
const UNAVAILABLE_ADAPTER_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'TransactionAlreadyClosed',
]);

/** node-postgres and Node words for a connection that failed, timed out or broke. */
const UNAVAILABLE_MESSAGE =
  /Connection terminated|Query read timeout|timeout exceeded when trying to connect|Client has encountered a connection error|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|cannot reach Postgres/;

/**
 * True when an error says the database could not serve the request at all (down, frozen past a timeout,
 * shutting down, out of connections), whatever wrapped it: Prisma, its pg adapter, node-postgres, or Fusebox's
 * DatabaseUnreachableError. Such an error is the client's cue to retry later (HTTP 503), not a bug (500).
 *
 * @example
 * catch (error) { if (isDatabaseUnavailable(error)) reply.code(503).header('retry-after', '1'); }
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let current = error; current && typeof current === 'object' && !seen.has(current);) {
    seen.add(current);
    const { code, kind, message, meta, cause } = current as {
      code?: unknown;
      kind?: unknown;
      message?: unknown;
      meta?: { driverAdapterError?: unknown };
      cause?: unknown;
    };
    if (typeof code === 'string' && (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_PRISMA_CODES.has(code)))
      return true;
    if (code === 'FUSEBOX_DB_UNREACHABLE') return true;
    if (typeof kind === 'string' && UNAVAILABLE_ADAPTER_KINDS.has(kind)) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true;
    current = meta?.driverAdapterError ?? cause;
  }
  return false;
}

/**
 * How long a client should wait before retrying a request that found the database unavailable: a restarted
 * Postgres answers within about a second, and every wait on it is bounded by a statement timeout.
 */
export const DATABASE_RETRY_AFTER_S = 2;

/** What a 503 says when the database could not serve the request: the cause's own words, never a stack. */
export function databaseOutageDetail(cause: unknown): string {
  const reason = cause instanceof Error ? lastLine(cause.message) : String(cause);
  return `the database is unavailable (${reason}); retry after ${DATABASE_RETRY_AFTER_S} s`;
}

/** Prisma's messages start with the invocation and source location; the cause is on the last line. */
function lastLine(message: string): string {
  return message.trim().split('\n').at(-1)?.trim() ?? message;
}
