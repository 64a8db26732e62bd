import { initTRPC } from '@trpc/server';
import type { RouterContext } from './router-context';

/** What a client is told of a failure the server did not foresee; the cause goes to the log (`onError`). */
export const INTERNAL_ERROR_MESSAGE = 'internal server error; the server log has the cause';

const t = initTRPC.context<RouterContext>().create({
  // Never a stack in a response, whatever NODE_ENV says.
  isDev: false,
  // An unforeseen failure's message may be a database error, with SQL and values: clients get a fixed one.
  errorFormatter: ({ shape, error }) =>
    error.code === 'INTERNAL_SERVER_ERROR' ? { ...shape, message: INTERNAL_ERROR_MESSAGE } : shape,
});

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure;
