import type { RouterContext } from '@fusebox/api-router';
import { checkHealth } from './health';
import { sampleLoad, watchLoad } from './overview/live-load';
import type { Services } from './services';

/** The tRPC router's context from the server's services: what only the running server can answer. */
export function trpcContext(services: Services): RouterContext {
  return {
    prisma: services.prisma,
    health: () => checkHealth(services),
    load: (signal) => sampleLoad(services, signal),
    watchLoad: (signal) => watchLoad(services, signal),
    languages: async () => (services.executor ? services.executor.languages() : []),
  };
}
