import { TRPCError, type TRPCRouterRecord } from '@trpc/server';
import { z } from 'zod';
import { SESSION_STATES, rewardDetailSchema, searchRecordSchema } from '@fusebox/agent-sessions';
import { taskMetadataSchema } from '@fusebox/tasks';
import { epochDate } from '@fusebox/db/bounded-numbers';
import { publicProcedure } from '../init';

const listInput = z.object({
  state: z.enum(SESSION_STATES).optional(),
  /** Sessions of one task (its instance_hash). */
  taskId: z.string().min(1).optional(),
  /** Only sessions that recorded an error (true) or none (false). */
  hasErrors: z.boolean().optional(),
  /** Only sessions with a computed reward (true) or without (false). */
  rewarded: z.boolean().optional(),
  // Coerced, because without a transformer a date crosses HTTP as an ISO string.
  createdAfter: epochDate().optional(),
  createdBefore: epochDate().optional(),
  limit: z.int().min(1).max(200).default(50),
  /** The last id of the previous page. */
  cursor: z.string().optional(),
});

const sessionSummary = {
  id: true,
  taskId: true,
  state: true,
  sessionMode: true,
  createdAt: true,
  updatedAt: true,
  lastActionAt: true,
  postprocessedAt: true,
  actionCount: true,
  errorCount: true,
  reward: true,
  f2pCount: true,
  f2pTotal: true,
  p2pCount: true,
  p2pTotal: true,
  rewardAt: true,
  task: { select: { name: true, language: true } },
} as const;

/** Agent sessions (/start_instance … /compute_reward): newest first, and one with everything it did. */
export const sessionsRouter = {
  list: publicProcedure.input(listInput).query(async ({ ctx, input }) => {
    const rows = await ctx.prisma.session.findMany({
      where: {
        ...(input.state ? { state: input.state } : {}),
        ...(input.taskId ? { taskId: input.taskId } : {}),
        ...(input.hasErrors === undefined ? {} : { errorCount: input.hasErrors ? { gt: 0 } : 0 }),
        ...(input.rewarded === undefined ? {} : { reward: input.rewarded ? { not: null } : null }),
        ...(input.createdAfter || input.createdBefore
          ? {
              createdAt: {
                ...(input.createdAfter ? { gte: input.createdAfter } : {}),
                ...(input.createdBefore ? { lt: input.createdBefore } : {}),
              },
            }
          : {}),
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: input.limit + 1,
      ...(input.cursor ? { cursor: { id: input.cursor }, skip: 1 } : {}),
      select: sessionSummary,
    });
    const page = rows.slice(0, input.limit);
    return { items: page, nextCursor: rows.length > input.limit ? (page.at(-1)?.id ?? null) : null };
  }),

  byId: publicProcedure.input(z.object({ id: z.string().min(1) })).query(async ({ ctx, input }) => {
    const session = await ctx.prisma.session.findUnique({
      where: { id: input.id },
      select: {
        ...sessionSummary,
        rewardDetail: true,
        // Read for a search task's spec (golden answers, rule), which the timeline shows before any reward.
        task: { select: { name: true, language: true, prompt: true, metadata: true } },
        actions: {
          orderBy: { seq: 'asc' },
          select: {
            seq: true,
            content: true,
            code: true,
            observation: true,
            search: true,
            status: true,
            returnCode: true,
            durationMs: true,
            executionId: true,
            createdAt: true,
          },
        },
        events: {
          orderBy: { createdAt: 'asc' },
          select: { level: true, route: true, message: true, createdAt: true },
        },
      },
    });
    if (!session) throw new TRPCError({ code: 'NOT_FOUND', message: `no session has sid ${input.id}` });
    const { rewardDetail, task, actions, ...rest } = session;
    return {
      ...rest,
      task: { name: task.name, language: task.language, prompt: task.prompt },
      /** The task's search spec, for a search task; its golden answers may have changed since a reward. */
      search: taskMetadataSchema.safeParse(task.metadata).data?.search ?? null,
      actions: actions.map(({ search, ...action }) => ({
        ...action,
        search: search === null ? null : searchRecordSchema.parse(search),
      })),
      rewardDetail: rewardDetail === null ? null : rewardDetailSchema.parse(rewardDetail),
    };
  }),
} satisfies TRPCRouterRecord;
