import type { PrismaClient } from '@fusebox/db/client';
import { Prisma } from '@fusebox/db/prisma';
import { EXECUTOR_KEY } from './live-load';

/** One time bucket of a key's history. */
export interface LoadPoint {
  /** Bucket start, ms since the epoch. */
  t: number;
  /** The most executions running at once during the bucket. */
  inFlight: number;
  /** The most executions waiting for a permit at once during the bucket. */
  waiting: number;
  /** Executions that finished in the bucket. */
  finished: number;
}

export interface KeyHistory {
  key: string;
  points: LoadPoint[];
  /** Executions finished in the window. */
  finished: number;
  /** Executions finished per second over the last minute. */
  perSecond: number;
  runMs: { p50: number | null; p95: number | null };
  /** Waiting for a permit of the key: the global limit holding executions back. */
  permitWaitMs: { p50: number | null; p95: number | null };
  /** Waiting, permit in hand, for a slot of the executor: the sandbox machine itself being the bottleneck. */
  sandboxQueueMs: { p50: number | null; p95: number | null };
  /**
   * Finished executions by recorded status: SandboxFusion's (Success, Failed, SandboxError) and the requests
   * that got no execution's answer (Refused, Abandoned, Error).
   */
  statuses: Record<string, number>;
  /** The same executions by whose fault they ended so (see `OUTCOMES`). */
  outcomes: Partial<Record<Outcome, number>>;
}

/**
 * Why an execution ended as it did, for the overview's error split: the model's code failing (`Failed`),
 * running out of time (`Timeout`) or being killed by the kernel at the sandbox's memory cap (`OutOfMemory`) is
 * the model's doing; `SandboxError` and `Error` are the infrastructure's;
 * `RateLimited` (429: the limiter's queue was full, or the wait for a permit too long), `Refused` (any other
 * 4xx/5xx before running) and `Abandoned` (its client went away) are requests that never got an answer.
 */
export const OUTCOMES = [
  'Success',
  'Failed',
  'Timeout',
  'OutOfMemory',
  'SandboxError',
  'Error',
  'RateLimited',
  'Refused',
  'Abandoned',
] as const;
export type Outcome = (typeof OUTCOMES)[number];

export interface LoadHistory {
  from: number;
  to: number;
  bucketSeconds: number;
  keys: KeyHistory[];
}

/**
 * Each execution once per key whose load it was, as (key, status, outcome, wait_from, run_from, run_to,
 * compile_ms, run_ms, permit_ms, sandbox_ms): under its limiter key, waiting from its request and running from
 * its permit; and under the executor, which every execution that reached a sandbox slot loaded, gated or not,
 * waiting from its permit (or its request, ungated) and running from its slot. `where` filters `execution e`.
 */
function keyedExecutions(where: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`(
    SELECT e."limiter_key" AS "key", e."status", ${OUTCOME} AS "outcome", e."requested_at" AS "wait_from",
      e."acquired_at" AS "run_from", e."finished_at" AS "run_to", e."compile_ms", e."run_ms", p."permit_ms",
      greatest(e."queue_wait_ms" - p."permit_ms", 0) AS "sandbox_ms"
    FROM "execution" e, ${PERMIT_MS}
    WHERE e."limiter_key" IS NOT NULL AND ${where}
    UNION ALL
    SELECT ${EXECUTOR_KEY}, e."status", ${OUTCOME},
      CASE WHEN e."limiter_key" IS NULL THEN e."requested_at" ELSE e."acquired_at" END,
      s."slot_from",
      -- The slot is freed before the answer's finished_at is taken: a run ending on its own clock keeps a
      -- queued run's start from overlapping its end, which would show more slots in use than there are.
      least(e."finished_at", s."slot_from" + (coalesce(e."compile_ms", 0) + e."run_ms") * interval '1 millisecond'),
      e."compile_ms", e."run_ms", 0::float8,
      CASE WHEN e."limiter_key" IS NULL THEN e."queue_wait_ms" ELSE greatest(e."queue_wait_ms" - p."permit_ms", 0) END
    FROM "execution" e, ${PERMIT_MS}, LATERAL (
      SELECT CASE WHEN e."limiter_key" IS NULL THEN e."acquired_at"
        ELSE least(greatest(e."acquired_at", e."requested_at" + e."queue_wait_ms" * interval '1 millisecond'), e."finished_at")
      END AS "slot_from") s
    WHERE (e."limiter_key" IS NULL OR e."acquired_at" IS NOT NULL) AND ${where}
  ) keyed`;
}

/** An execution's wait for its permit (requested → acquired), in ms; 0 when it got none. */
const PERMIT_MS = Prisma.sql`LATERAL (
  SELECT coalesce(extract(epoch FROM e."acquired_at" - e."requested_at") * 1000, 0)::float8 AS "permit_ms") p`;

/** Exit code of a program ended by SIGKILL: what the memory cgroup's OOM killer sends at the sandbox's cap. */
export const SIGKILL_EXIT = 137;

/**
 * An execution's `Outcome`: a Failed run or compile that hit its time limit is a Timeout; a Failed run that
 * the kernel killed otherwise (exit 137) is OutOfMemory, as the memory cap ends a run. The program can also
 * kill itself with SIGKILL and be counted here: the split tells an engineer where to look, it rewards nothing.
 */
const OUTCOME = Prisma.sql`CASE WHEN e."status" = 'Failed'
    AND 'TimeLimitExceeded' IN (coalesce(e."run_status", ''), coalesce(e."compile_status", '')) THEN 'Timeout'
  WHEN e."status" = 'Failed' AND e."return_code" = ${SIGKILL_EXIT} THEN 'OutOfMemory'
  WHEN e."status" = 'Refused' AND e."message" LIKE '429%' THEN 'RateLimited'
  ELSE e."status" END`;

function tally(entries: [string, number][]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [name, count] of entries) counts[name] = (counts[name] ?? 0) + count;
  return counts;
}

/** Executions that started this long before the window are not looked for (runs time out well before). */
const LONGEST_RUN = '1 hour';

interface BucketRow {
  key: string;
  /** -1 for everything before the window: its end state is where the window starts. */
  bucket: number;
  peak_in_flight: number;
  end_in_flight: number;
  peak_waiting: number;
  end_waiting: number;
  finished: number;
}

interface SummaryRow {
  key: string;
  finished: number;
  last_minute: number;
  run_p50: number | null;
  run_p95: number | null;
  permit_p50: number | null;
  permit_p95: number | null;
  sandbox_p50: number | null;
  sandbox_p95: number | null;
}

/**
 * Load over the last `minutes`, per limiter key, from the `execution` table. In flight and waiting over time are
 * exact: a running sum over every execution's acquired→finished and requested→acquired instants, taking the
 * peak per bucket. With them: throughput, run-time percentiles, and statuses; and where executions waited: for a
 * permit (requested → acquired) or, permit held, in the executor's queue (the rest of `queue_wait_ms`). Executions are
 * recorded when they finish, so the ones running now appear in the live numbers, not here.
 */
export async function loadHistory(
  prisma: PrismaClient,
  options: { minutes: number; bucketSeconds: number; now?: Date },
): Promise<LoadHistory> {
  const to = options.now ?? new Date();
  const from = new Date(to.getTime() - options.minutes * 60_000);
  const size = options.bucketSeconds;
  const window = await prisma.$queryRaw<BucketRow[]>`
    WITH ex AS (
      SELECT "key", "wait_from" AS "requested_at", "run_from" AS "acquired_at", "run_to" AS "finished_at"
      FROM ${keyedExecutions(Prisma.sql`e."requested_at" >= ${from}::timestamptz - ${LONGEST_RUN}::interval AND e."requested_at" <= ${to}
        AND (e."finished_at" IS NULL OR e."finished_at" >= ${from}::timestamptz - ${LONGEST_RUN}::interval)`)}
    ), events AS (
      SELECT "key", "acquired_at" AS t, 1 AS run, 0 AS wait, 0 AS fin FROM ex WHERE "acquired_at" IS NOT NULL
      UNION ALL SELECT "key", "finished_at", -1, 0, 1 FROM ex WHERE "acquired_at" IS NOT NULL AND "finished_at" IS NOT NULL
      UNION ALL SELECT "key", "finished_at", 0, 0, 1 FROM ex WHERE "acquired_at" IS NULL AND "finished_at" IS NOT NULL
      UNION ALL SELECT "key", "requested_at", 0, 1, 0 FROM ex
      UNION ALL SELECT "key", coalesce("acquired_at", "finished_at"), 0, -1, 0 FROM ex
        WHERE coalesce("acquired_at", "finished_at") IS NOT NULL
    ), sums AS (
      -- Ends sort before starts at the same instant, so a hand-over is not counted as two at once.
      SELECT "key", t, run, wait, fin,
        sum(run) OVER w AS in_flight, sum(wait) OVER w AS waiting,
        CASE WHEN t < ${from} THEN -1 ELSE floor(extract(epoch FROM t - ${from}::timestamptz) / ${size})::int END AS bucket
      FROM events WHERE t <= ${to}
      WINDOW w AS (PARTITION BY "key" ORDER BY t, run, wait ROWS UNBOUNDED PRECEDING)
    ), ranked AS (
      SELECT *, row_number() OVER (PARTITION BY "key", bucket ORDER BY t DESC, run DESC, wait DESC) AS from_end
      FROM sums
    )
    SELECT "key", bucket, max(in_flight)::int AS peak_in_flight, max(waiting)::int AS peak_waiting,
      max(in_flight) FILTER (WHERE from_end = 1)::int AS end_in_flight,
      max(waiting) FILTER (WHERE from_end = 1)::int AS end_waiting,
      coalesce(sum(fin), 0)::int AS finished
    FROM ranked GROUP BY "key", bucket ORDER BY "key", bucket`;

  const finishedInWindow = keyedExecutions(
    Prisma.sql`e."requested_at" >= ${from}::timestamptz - ${LONGEST_RUN}::interval AND e."finished_at" >= ${from}
      AND e."finished_at" <= ${to}`,
  );
  const summaries = await prisma.$queryRaw<SummaryRow[]>`
    SELECT "key", count(*)::int AS finished,
      count(*) FILTER (WHERE "run_to" >= ${to}::timestamptz - interval '1 minute')::int AS last_minute,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY coalesce("compile_ms", 0) + "run_ms") AS run_p50,
      percentile_cont(0.95) WITHIN GROUP (ORDER BY coalesce("compile_ms", 0) + "run_ms") AS run_p95,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY "permit_ms") AS permit_p50,
      percentile_cont(0.95) WITHIN GROUP (ORDER BY "permit_ms") AS permit_p95,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY "sandbox_ms") AS sandbox_p50,
      percentile_cont(0.95) WITHIN GROUP (ORDER BY "sandbox_ms") AS sandbox_p95
    FROM ${finishedInWindow}
    GROUP BY 1`;
  const statuses = await prisma.$queryRaw<{ key: string; status: string; outcome: string; count: number }[]>`
    SELECT "key", "status", "outcome", count(*)::int AS "count" FROM ${finishedInWindow} GROUP BY 1, 2, 3`;

  const count = Math.ceil((options.minutes * 60) / size);
  const keys = [...new Set([...window.map((row) => row.key), ...summaries.map((row) => row.key)])].sort();
  return {
    from: from.getTime(),
    to: to.getTime(),
    bucketSeconds: size,
    keys: keys.map((key) => {
      const rows = new Map(window.filter((row) => row.key === key).map((row) => [row.bucket, row]));
      const before = rows.get(-1);
      let inFlight = before?.end_in_flight ?? 0;
      let waiting = before?.end_waiting ?? 0;
      // A bucket without events holds whatever was running at the end of the one before.
      const points = Array.from({ length: count }, (_, bucket): LoadPoint => {
        const row = rows.get(bucket);
        const point = {
          t: from.getTime() + bucket * size * 1000,
          inFlight: row ? row.peak_in_flight : inFlight,
          waiting: row ? row.peak_waiting : waiting,
          finished: row?.finished ?? 0,
        };
        if (row) {
          inFlight = row.end_in_flight;
          waiting = row.end_waiting;
        }
        return point;
      });
      const summary = summaries.find((row) => row.key === key);
      return {
        key,
        points,
        finished: summary?.finished ?? 0,
        perSecond: (summary?.last_minute ?? 0) / 60,
        runMs: { p50: summary?.run_p50 ?? null, p95: summary?.run_p95 ?? null },
        permitWaitMs: { p50: summary?.permit_p50 ?? null, p95: summary?.permit_p95 ?? null },
        sandboxQueueMs: { p50: summary?.sandbox_p50 ?? null, p95: summary?.sandbox_p95 ?? null },
        statuses: tally(statuses.filter((row) => row.key === key).map((row) => [row.status, row.count])),
        outcomes: tally(statuses.filter((row) => row.key === key).map((row) => [row.outcome, row.count])),
      };
    }),
  };
}
