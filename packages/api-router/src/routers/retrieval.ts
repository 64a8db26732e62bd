import type { TRPCRouterRecord } from '@trpc/server';
import { z } from 'zod';
import { publicProcedure } from '../init';

const callsInput = z.object({
  /** Only calls of this corpus (by the name the request used). */
  corpus: z.string().min(1).max(200).optional(),
  /** Only refused calls (a status other than 200). */
  refused: z.boolean().optional(),
  limit: z.int().min(1).max(200).default(50),
  /** The last id of the previous page. */
  cursor: z.uuid().nullish(),
});

/** Per query, the documents /retrieve returned: their corpus ids and BM25 scores. */
const callResultsSchema = z.array(z.array(z.object({ id: z.string(), score: z.number() })));

/** What search tasks and verl's SearchTool searched: the imported corpora and every /retrieve call. */
export const retrievalRouter = {
  corpora: publicProcedure.query(({ ctx }) =>
    ctx.prisma.retrievalCorpus.findMany({
      orderBy: { name: 'asc' },
      select: {
        name: true,
        sourcePath: true,
        documentCount: true,
        linesRejected: true,
        updatedAt: true,
        _count: { select: { calls: true } },
      },
    }),
  ),

  calls: publicProcedure.input(callsInput).query(async ({ ctx, input }) => {
    const rows = await ctx.prisma.retrievalCall.findMany({
      where: {
        ...(input.corpus ? { corpusName: input.corpus } : {}),
        ...(input.refused ? { status: { not: 200 } } : {}),
      },
      // uuid v7 ids are time-ordered: newest first, and a stable cursor.
      orderBy: { id: 'desc' },
      take: input.limit + 1,
      ...(input.cursor ? { cursor: { id: input.cursor }, skip: 1 } : {}),
      select: {
        id: true,
        corpusName: true,
        queries: true,
        topk: true,
        status: true,
        error: true,
        results: true,
        durationMs: true,
        createdAt: true,
      },
    });
    const page = rows.slice(0, input.limit);
    return {
      items: page.map((row) => ({
        ...row,
        queries: z.array(z.string()).catch([]).parse(row.queries),
        results: callResultsSchema.nullable().catch(null).parse(row.results),
      })),
      nextCursor: rows.length > input.limit ? (page.at(-1)?.id ?? null) : null,
    };
  }),
} satisfies TRPCRouterRecord;
