import type { DashboardLimits, RouterContext } from '@fusebox/api-router';
import type { Env } from './env';
import { checkHealth } from './health';
import { sampleLoad, watchLoad } from './overview/live-load';
import type { Services } from './services';

/** The dashboard's bounds and live interval, from the environment. */
export function dashboardLimits(env: Env): DashboardLimits {
  return {
    sessionActionsPage: env.FUSEBOX_DASHBOARD_ACTIONS_PAGE,
    actionPreviewChars: env.FUSEBOX_DASHBOARD_PREVIEW_CHARS,
    actionMaxChars: env.FUSEBOX_DASHBOARD_ACTION_MAX_CHARS,
    exportMaxSamples: env.FUSEBOX_DASHBOARD_EXPORT_MAX_SAMPLES,
    chartSplitGroups: env.FUSEBOX_DASHBOARD_CHART_GROUPS,
    groupMaxSamples: env.FUSEBOX_DASHBOARD_GROUP_MAX_SAMPLES,
    liveIntervalMs: env.FUSEBOX_DASHBOARD_LIVE_INTERVAL_MS,
  };
}

/** The tRPC router's context from the server's services: what only the running server can answer. */
export function trpcContext(services: Services): RouterContext {
  return {
    prisma: services.prisma,
    health: () => checkHealth(services),
    load: (signal) => sampleLoad(services, signal),
    watchLoad: (signal) => watchLoad(services, signal),
    languages: async () => (services.executor ? services.executor.languages() : []),
    limits: dashboardLimits(services.env),
  };
}
