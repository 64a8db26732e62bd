import { TRPCError, initTRPC } from '@trpc/server';
import { databaseOutageDetail, isDatabaseUnavailable } from '@fusebox/db/database-unavailable';
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
/**
 * A database that cannot serve the request (down, frozen past its statement timeout, restarting) is the
 * client's cue to retry, as the plain routes answer it (503), not an internal error.
 */
const databaseOutages = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && isDatabaseUnavailable(result.error.cause)) {
    throw new TRPCError({
      code: 'SERVICE_UNAVAILABLE',
      message: databaseOutageDetail(result.error.cause),
      cause: result.error.cause,
    });
  }
  return result;
});

export const publicProcedure = t.procedure.use(databaseOutages);
