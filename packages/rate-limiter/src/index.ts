// `@fusebox/rate-limiter`: the `Limiter` interface, the in-process limiter and the typed errors. The cluster-wide
// limiter on Postgres is `@fusebox/rate-limiter/pg`, so that only its users need `pg`.
export type { AcquireOptions, Holder, Limiter, LimiterStats, Permit } from './limiter';
export { createLocalLimiter, type LocalLimiterOptions } from './local-limiter';
export {
  LIMITER_ERROR_CODES,
  LimiterClosedError,
  LimiterError,
  LimiterKeyCollisionError,
  LimiterSharedSessionError,
  LimiterTimeoutError,
  LimiterUnavailableError,
  PermitLostError,
  isLimiterError,
  type LimiterErrorCode,
} from './errors/index';
