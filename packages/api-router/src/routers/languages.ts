import type { TRPCRouterRecord } from '@trpc/server';
import { publicProcedure } from '../init';

/** The languages this server's executor runs, with their toolchains' versions, and why not the others. */
export const languagesRouter = {
  list: publicProcedure.query(({ ctx }) => ctx.languages()),
} satisfies TRPCRouterRecord;
