import type { PrismaClient } from '@fusebox/db/client';

/** What the server recorded of the executions in a window of time: the limiter's story, from the database. */
export interface ExecutionStats {
  executions: number;
  /** SandboxFusion statuses: Success, Failed, SandboxError. */
  byStatus: Record<string, number>;
  /** The most executions that held a permit at the same moment, from their recorded [acquired, finished]. */
  peakInFlight: number;
  /** Time from request to permit, summed over executions. */
  limiterWaitMs: number;
  /** Time from request to finish, summed over executions. */
  serverMs: number;
}

const WINDOW = '"requested_at" >= $1::timestamptz AND "requested_at" <= $2::timestamptz';

/**
 * Reads the `execution` rows requested between `from` and `to`. At equal timestamps a finish counts before an
 * acquire, since a permit is released before the next waiter gets it.
 */
export async function readExecutionStats(
  prisma: PrismaClient,
  from: Date,
  to: Date,
): Promise<ExecutionStats> {
  const statuses = await prisma.$queryRawUnsafe<{ status: string; count: number }[]>(
    `SELECT "status", count(*)::int AS "count" FROM "execution" WHERE ${WINDOW} GROUP BY "status"`,
    from,
    to,
  );
  const rows = await prisma.$queryRawUnsafe<
    {
      wait_ms: number | null;
      server_ms: number | null;
      peak: number | null;
    }[]
  >(
    `WITH runs AS (
       SELECT "requested_at", "acquired_at", "finished_at" FROM "execution"
       WHERE ${WINDOW} AND "acquired_at" IS NOT NULL AND "finished_at" IS NOT NULL
     ), events AS (
       SELECT "acquired_at" AS "at", 1 AS "delta" FROM runs
       UNION ALL SELECT "finished_at", -1 FROM runs
     ), running AS (
       SELECT sum("delta") OVER (ORDER BY "at", "delta" ROWS UNBOUNDED PRECEDING) AS "n" FROM events
     )
     SELECT (SELECT sum(extract(epoch FROM "acquired_at" - "requested_at")) * 1000 FROM runs)::float8 AS "wait_ms",
            (SELECT sum(extract(epoch FROM "finished_at" - "requested_at")) * 1000 FROM runs)::float8 AS "server_ms",
            (SELECT max("n") FROM running)::int AS "peak"`,
    from,
    to,
  );
  const [totals] = rows;
  return {
    executions: statuses.reduce((sum, row) => sum + row.count, 0),
    byStatus: Object.fromEntries(statuses.map((row) => [row.status, row.count])),
    peakInFlight: totals?.peak ?? 0,
    limiterWaitMs: totals?.wait_ms ?? 0,
    serverMs: totals?.server_ms ?? 0,
  };
}
