export { LIMITER_ERROR_CODES, LimiterError, isLimiterError, type LimiterErrorCode } from './limiter-error';
export { LimiterClosedError } from './limiter-closed-error';
export { LimiterKeyCollisionError } from './key-collision-error';
export { LimiterSharedSessionError } from './shared-session-error';
export { LimiterTimeoutError } from './limiter-timeout-error';
export { LimiterUnavailableError } from './limiter-unavailable-error';
export { PermitLostError } from './permit-lost-error';
