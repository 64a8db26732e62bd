// The dashboard's tRPC API: the router the host serves at /trpc, its type for clients, and the context it needs.
export { type AppRouter, appRouter, createCaller } from './router';
export { INTERNAL_ERROR_MESSAGE } from './init';
export type { RouterContext } from './router-context';
export type { DashboardLimits } from './dashboard-limits';
export type { Health } from './health';
export type { LanguageRow } from './languages';
export { EXECUTOR_KEY, type KeyLoad, type LiveLoad, SAMPLE_INTERVAL_MS } from './live-load';
export type { KeyHistory, LoadHistory, LoadPoint } from './load-history';
