// `@fusebox/rate-limiter/pg`: the cluster-wide limiter on Postgres advisory locks, and `listLimiters` for
// dashboards. It loads `pg` (an optional peer dependency of this package); the errors it throws are the root
// entry's classes.
export {
  DEFAULT_MAX_WAITING_CONNECTIONS,
  createPgLimiter,
  type LimiterConnection,
  type PgLimiterOptions,
} from './pg-limiter';
export type { ConnectionSource } from './pg-connection';
export { listLimiters } from './list-limiters';
