import type { PrismaClient } from '@fusebox/db/client';

/** An imported run, with what its import recorded: step files, samples taken and lines rejected. */
export interface RolloutRunSummary {
  id: string;
  name: string;
  sourceDir: string;
  /** When an import last added to it. */
  updatedAt: Date;
  steps: number;
  samples: number;
  rejected: number;
  lastStep: number | null;
}

/**
 * Every imported run, the most recently imported into first, counted from the import's per-file bookkeeping
 * (no sample is read): what the dashboard's run list and `fusebox runs list` show.
 */
export async function rolloutRuns(prisma: PrismaClient): Promise<RolloutRunSummary[]> {
  const runs = await prisma.$queryRaw<
    (Omit<RolloutRunSummary, 'samples' | 'rejected'> & { samples: bigint; rejected: bigint })[]
  >`SELECT r."id", r."name", r."source_dir" AS "sourceDir", r."updated_at" AS "updatedAt",
      count(f."id")::int AS "steps", coalesce(sum(f."lines_read" - f."lines_rejected"), 0)::bigint AS "samples",
      coalesce(sum(f."lines_rejected"), 0)::bigint AS "rejected", max(f."step") AS "lastStep"
    FROM "rollout_run" r LEFT JOIN "rollout_file" f ON f."run_id" = r."id"
    GROUP BY r."id" ORDER BY r."updated_at" DESC`;
  return runs.map((run) => ({ ...run, samples: Number(run.samples), rejected: Number(run.rejected) }));
}
