import { TRPCError, type TRPCRouterRecord } from '@trpc/server';
import { z } from 'zod';
import { TASK_SOURCES, storedTask, storedTaskSelect, taskMetadataSchema } from '@fusebox/tasks';
import { containsText } from '../contains-text';
import { publicProcedure } from '../init';

const listInput = z.object({
  source: z.enum(TASK_SOURCES).optional(),
  /** Matches the name or the instance_hash, case-insensitively. */
  search: z.string().trim().max(200).optional(),
  limit: z.int().min(1).max(200).default(50),
  /** The last id of the previous page. */
  cursor: z.string().optional(),
});

/** The tasks that instance_hash values name: browse them and see what a session of one runs. */
export const tasksRouter = {
  list: publicProcedure.input(listInput).query(async ({ ctx, input }) => {
    const rows = await ctx.prisma.task.findMany({
      where: {
        ...(input.source ? { source: input.source } : {}),
        ...(input.search ? { OR: [{ name: containsText(input.search) }, { id: input.search }] } : {}),
      },
      orderBy: [{ name: 'asc' }, { id: 'asc' }],
      take: input.limit + 1,
      ...(input.cursor ? { cursor: { id: input.cursor }, skip: 1 } : {}),
      select: {
        id: true,
        name: true,
        source: true,
        language: true,
        sessionMode: true,
        failToPass: true,
        passToPass: true,
        createdAt: true,
        updatedAt: true,
        _count: { select: { sessions: true } },
      },
    });
    const page = rows.slice(0, input.limit);
    return {
      items: page.map(({ _count, failToPass, passToPass, ...task }) => ({
        ...task,
        f2pTotal: failToPass.length,
        p2pTotal: passToPass.length,
        sessionCount: _count.sessions,
      })),
      nextCursor: rows.length > input.limit ? (page.at(-1)?.id ?? null) : null,
    };
  }),

  byId: publicProcedure.input(z.object({ id: z.string().min(1) })).query(async ({ ctx, input }) => {
    const row = await ctx.prisma.task.findUnique({
      where: { id: input.id },
      select: {
        ...storedTaskSelect,
        source: true,
        prompt: true,
        createdAt: true,
        updatedAt: true,
        _count: { select: { sessions: true } },
      },
    });
    if (!row) throw new TRPCError({ code: 'NOT_FOUND', message: `no task has instance_hash ${input.id}` });
    const { setupFiles, ...task } = storedTask(row);
    return {
      ...task,
      source: row.source,
      prompt: row.prompt,
      /** The names of the files written into the working directory; their contents can be large. */
      setupFiles: Object.keys(setupFiles),
      extra: taskMetadataSchema.parse(row.metadata).extra,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
      sessionCount: row._count.sessions,
    };
  }),
} satisfies TRPCRouterRecord;
