import type { PrismaClient } from '@fusebox/db/client';

/** Samples read for a run's extra field names. */
const FIELD_NAME_SAMPLES = 2000;

/**
 * The extra fields of a run's dump (acc, pred, data_source, …), from its first samples: what a query may name
 * without `extra.` (sample-query.ts). A dump's samples carry the same fields, and reading every sample's keys
 * would cost a scan of the run per search.
 */
export async function runFieldNames(prisma: PrismaClient, runId: string): Promise<Set<string>> {
  const rows = await prisma.$queryRaw<{ name: string }[]>`
    SELECT DISTINCT jsonb_object_keys(s."extras") AS "name"
    FROM (SELECT "extras" FROM "rollout_sample" WHERE "run_id" = ${runId}::uuid
      ORDER BY "step", "line" LIMIT ${FIELD_NAME_SAMPLES}) s`;
  return new Set(rows.map((row) => row.name));
}
