import type { TRPCRouterRecord } from '@trpc/server';
import { publicProcedure } from '../init';

export const healthRouter = {
  get: publicProcedure.query(({ ctx }) => ctx.health()),
} satisfies TRPCRouterRecord;
