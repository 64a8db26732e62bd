import { createCallerFactory, createTRPCRouter } from './init';
import { executionsRouter } from './routers/executions';
import { healthRouter } from './routers/health';
import { languagesRouter } from './routers/languages';
import { limiterRouter } from './routers/limiter';
import { overviewRouter } from './routers/overview';
import { retrievalRouter } from './routers/retrieval';
import { rolloutAnalysisRouter } from './routers/rollout-analysis';
import { rolloutsRouter } from './routers/rollouts';
import { sessionsRouter } from './routers/sessions';
import { tasksRouter } from './routers/tasks';

/** The dashboard's API. Each domain has its own router file under ./routers. */
export const appRouter = createTRPCRouter({
  executions: executionsRouter,
  health: healthRouter,
  languages: languagesRouter,
  limiter: limiterRouter,
  overview: overviewRouter,
  retrieval: retrievalRouter,
  rollouts: rolloutsRouter,
  rolloutAnalysis: rolloutAnalysisRouter,
  sessions: sessionsRouter,
  tasks: tasksRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
