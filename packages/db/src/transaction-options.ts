/**
 * Prisma's own transaction bounds, which its defaults set below what the database allows: a transaction may wait
 * `waitMs` to start (for a pool connection, or for PGlite's one lock; Prisma gives up after 2 s, so two servers
 * starting at once on a loaded machine failed their builtin tasks' import with P2028 and exited), and a batch
 * may run many statements, each bounded by the statement timeout, for up to a minute.
 */
export function transactionOptions(waitMs: number) {
  return { maxWait: waitMs, timeout: 60_000 };
}
