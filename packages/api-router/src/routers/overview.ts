import type { TRPCRouterRecord } from '@trpc/server';
import { z } from 'zod';
import { loadHistory } from '../load-history';
import { publicProcedure } from '../init';

/** The overview page's history: how load has gone lately (the live part is the limiter router's). */
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
} satisfies TRPCRouterRecord;
