import type { TRPCRouterRecord } from '@trpc/server';
import { checkHealth } from '../../health';
import { publicProcedure } from '../init';

export const healthRouter = {
  get: publicProcedure.query(({ ctx }) => checkHealth(ctx)),
} satisfies TRPCRouterRecord;
