import { STATUS_CODES } from 'node:http';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  LogController,
} from 'fastify';
import { type AppRouter, appRouter } from '@fusebox/api-router';
import { CorpusSearcher } from '@fusebox/retrieval';
import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import {
  DATABASE_RETRY_AFTER_S,
  databaseOutageDetail,
  isDatabaseUnavailable,
} from '@fusebox/db/database-unavailable';
import { requireBearerToken } from './auth';
import { boundUnreadBodies } from './bound-unread-bodies';
import { jsonLimits } from './env';
import { localExecutionGate } from './execution-gate';
import { loggerOptions } from './logger';
import { registerOpenApiRoute } from './openapi';
import { registerHealthRoutes } from './routes/health';
import { registerLanguageRoutes } from './routes/languages';
import { registerLocalRoutes } from './routes/local';
import { localRetrieveLimiter } from './retrieve-limiter';
import { registerRetrieveRoutes } from './routes/retrieve';
import { registerSandboxRoutes } from './routes/sandbox';
import { sandboxLimits } from './routes/sandbox-limits';
import { registerAgentSessionRoutes } from './routes/sessions';
import type { Services } from './services';
import { trpcContext } from './trpc-context';
import { guardTrpcRequests } from './trpc-request-guards';

export interface ServerOptions {
  /** false silences the server (tests); a logger made beforehand is used as is (`fusebox serve`'s start-up lines). */
  logger?: boolean | FastifyBaseLogger;
}

/**
 * Builds the HTTP host: SandboxFusion's plain JSON routes for Python clients, and tRPC at /trpc for the
 * dashboard and TypeScript users.
 */
export async function buildServer(services: Services, options: ServerOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    ...(typeof options.logger === 'object'
      ? { loggerInstance: options.logger }
      : { logger: options.logger === false ? false : loggerOptions(services.env) }),
    // Per-request lines would drown the log at thousands of executions a second; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    // Rollouts reuse connections for thousands of calls; keep them open across training steps.
    keepAliveTimeout: 75_000,
  });

  // Routes outside the scopes that answer their own errors: a failure's message (a database error, a path) is
  // logged, never answered; refusals (4xx) keep theirs; a database that cannot answer is a 503 to retry.
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error, url: request.url }, 'database unavailable');
      return reply
        .code(503)
        .header('retry-after', String(DATABASE_RETRY_AFTER_S))
        .send({ statusCode: 503, error: STATUS_CODES[503], message: databaseOutageDetail(error) });
    }
    const status =
      error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500
        ? error.statusCode
        : 500;
    if (status === 500) request.log.error({ err: error, url: request.url }, 'request failed');
    return reply.code(status).send({
      statusCode: status,
      error: STATUS_CODES[status],
      message: status === 500 ? 'Internal Server Error' : error.message,
    });
  });

  boundUnreadBodies(app, services.env.FUSEBOX_MAX_BODY_BYTES);
  if (services.env.FUSEBOX_API_TOKEN) requireBearerToken(app, services.env.FUSEBOX_API_TOKEN);

  registerHealthRoutes(app, services);
  registerOpenApiRoute(app);
  // One for /retrieve and search sessions alike: each corpus's index is built once per process, and every
  // search counts against one limiter key.
  const searcher = new CorpusSearcher(services.prisma, {
    passageMemoryBytes: services.env.FUSEBOX_RETRIEVE_PASSAGE_MEMORY_MB * 1024 * 1024,
  });
  // Indexes are built once the server is up, so verl's first searches do not wait minutes for a big corpus.
  app.addHook('onReady', (done) => {
    void searcher.warm().then(
      (built) => built.length > 0 && app.log.info(`search indexes built: ${JSON.stringify(built)}`),
      (error: unknown) => app.log.warn({ err: error }, 'could not build the search indexes ahead'),
    );
    done();
  });
  // The caller's (cluster-wide, and the caller closes it) or one of this server's own, closed with it.
  const searchLimiter = services.searchLimiter ?? localRetrieveLimiter(services.env);
  if (!services.searchLimiter) app.addHook('onClose', () => searchLimiter.close());
  await registerRetrieveRoutes(app, { ...services, searcher, limiter: searchLimiter });
  if (services.local) registerLocalRoutes(app, { ...services.local, prisma: services.prisma });
  if (services.executor) {
    const gate = services.gate ?? localExecutionGate(services.env);
    registerLanguageRoutes(app, services.executor);
    await registerSandboxRoutes(app, {
      executor: services.executor,
      runner: services.upstream ?? services.executor,
      prisma: services.prisma,
      gate,
      limits: sandboxLimits(services.env),
    });
    await registerAgentSessionRoutes(app, {
      ...services,
      executor: services.executor,
      gate,
      searcher,
      searchLimiter,
    });
  }

  await app.register(async (scope) => {
    guardTrpcRequests(scope, jsonLimits(services.env));
    const context = trpcContext(services);
    await scope.register(fastifyTRPCPlugin, {
      prefix: '/trpc',
      trpcOptions: {
        router: appRouter,
        createContext: () => context,
        onError: ({ path, error }) => {
          if (error.code === 'INTERNAL_SERVER_ERROR')
            app.log.error({ path, err: error }, 'tRPC procedure failed');
        },
      } satisfies FastifyTRPCPluginOptions<AppRouter>['trpcOptions'],
    });
  });

  return app;
}
