import { type TRPCRouterRecord, tracked } from '@trpc/server';
import { publicProcedure } from '../init';

/** The global limit's state: what is in flight and waiting, per limiter key and for this API's executor. */
export const limiterRouter = {
  /** The load now: every limiter key's permits in flight and waiters, and this API process's executor. */
  stats: publicProcedure.query(({ ctx, signal }) => ctx.load(signal)),

  /** The same, once a second over SSE; a reconnecting client resumes from the last sample it saw. */
  inFlight: publicProcedure.subscription(async function* ({ ctx, signal }) {
    for await (const load of ctx.watchLoad(signal ?? new AbortController().signal)) {
      yield tracked(String(load.at), load);
    }
  }),
} satisfies TRPCRouterRecord;
