import { type TRPCRouterRecord, tracked } from '@trpc/server';
import { z } from 'zod';
import { loadHistory } from '../../overview/load-history';
import { sampleLoad, watchLoad } from '../../overview/live-load';
import { publicProcedure } from '../init';

/** The overview page: is the sandbox the bottleneck right now, and how has load gone lately? */
export const overviewRouter = {
  /** In flight, waiting and throughput per limiter key over the last minutes, from the execution table. */
  history: publicProcedure
    .input(
      z.object({
        minutes: z
          .int()
          .min(1)
          .max(24 * 60)
          .default(15),
        bucketSeconds: z.int().min(1).max(3600).default(5),
      }),
    )
    .query(async ({ ctx, input }) => {
      const [history, limits, total] = await Promise.all([
        loadHistory(ctx.prisma, input),
        ctx.prisma.limiterKey.findMany({ select: { key: true, limit: true } }),
        ctx.prisma.execution.count({ take: 1 }),
      ]);
      return { ...history, limits, hasExecutions: total > 0 };
    }),

  /** The load now: every limiter key's permits in flight and waiters, and this API process's executor. */
  now: publicProcedure.query(({ ctx, signal }) => sampleLoad(ctx, signal)),

  /** The load once a second, over SSE; a reconnecting client resumes from the last sample it saw. */
  live: publicProcedure.subscription(async function* ({ ctx, signal }) {
    for await (const load of watchLoad(ctx, signal ?? new AbortController().signal)) {
      yield tracked(String(load.at), load);
    }
  }),
} satisfies TRPCRouterRecord;
