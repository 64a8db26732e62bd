import type { PrismaClient } from '@fusebox/db/client';
import { Prisma } from '@fusebox/db/prisma';
import { searchRecordSchema } from '@fusebox/agent-sessions';

interface ActionRow {
  seq: number;
  content: string;
  code: string | null;
  observation: string;
  /** Each text's whole size in bytes, read from its header without reading the text. */
  contentBytes: number;
  codeBytes: number | null;
  observationBytes: number;
  /** Whether any of the three texts is longer than what was read of it. */
  truncated: boolean;
  search: unknown;
  status: string;
  returnCode: number | null;
  durationMs: number;
  executionId: string | null;
  createdAt: Date;
}

/**
 * A session's actions in order, `afterSeq` excluded, at most `take` of them, each text (content, code,
 * observation) cut at `maxChars` characters in the database, so a session's page costs the same however long
 * its model wrote. `seq` reads one action alone.
 */
export async function readSessionActions(
  prisma: PrismaClient,
  sessionId: string,
  options: { afterSeq: number; take: number; maxChars: number; seq?: number },
) {
  const { afterSeq, take, maxChars, seq } = options;
  const rows = await prisma.$queryRaw<ActionRow[]>`
    SELECT "seq", left("content", ${maxChars}) AS "content", left("code", ${maxChars}) AS "code",
      left("observation", ${maxChars}) AS "observation",
      octet_length("content") AS "contentBytes", octet_length("code") AS "codeBytes",
      octet_length("observation") AS "observationBytes",
      (char_length(left("content", ${maxChars + 1})) > ${maxChars}
        OR coalesce(char_length(left("code", ${maxChars + 1})) > ${maxChars}, false)
        OR char_length(left("observation", ${maxChars + 1})) > ${maxChars}) AS "truncated",
      "search", "status", "return_code" AS "returnCode", "duration_ms" AS "durationMs",
      "execution_id"::text AS "executionId", "created_at" AS "createdAt"
    FROM "action"
    WHERE "session_id" = ${sessionId} AND "seq" > ${afterSeq} ${seq === undefined ? Prisma.empty : Prisma.sql`AND "seq" = ${seq}`}
    ORDER BY "seq" LIMIT ${take + 1}`;
  const items = rows.slice(0, take).map(({ search, ...action }) => ({
    ...action,
    search: search === null ? null : searchRecordSchema.parse(search),
  }));
  return { items, nextCursor: rows.length > take ? (items.at(-1)?.seq ?? null) : null };
}
