import { createCallerFactory, createTRPCRouter } from './init';
import { healthRouter } from './routers/health';
import { sessionsRouter } from './routers/sessions';
import { tasksRouter } from './routers/tasks';

/** The dashboard's API. Each domain has its own router file under ./routers. */
export const appRouter = createTRPCRouter({
  health: healthRouter,
  sessions: sessionsRouter,
  tasks: tasksRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
