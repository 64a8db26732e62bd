/**
 * How long a client should wait before retrying a request that found the database unavailable: a restarted
 * Postgres answers within about a second, and every wait on it is bounded by FUSEBOX_DB_STATEMENT_TIMEOUT_MS.
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
