import { createCallerFactory, createTRPCRouter } from './init';
import { healthRouter } from './routers/health';

/** The dashboard's API. Each domain has its own router file under ./routers. */
export const appRouter = createTRPCRouter({
  health: healthRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
