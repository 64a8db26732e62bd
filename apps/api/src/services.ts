import type { PrismaClient } from '@fusebox/db/client';
import type { Executor } from '@fusebox/local-sandbox/executor';
import type { Limiter } from '@fusebox/rate-limiter';
import type { Env } from './env';
import type { ExecutionGate } from './execution-gate';
import type { LocalAccess } from './routes/local';
import type { UpstreamRunner } from './upstream-sandbox';

/**
 * Everything a route or a tRPC procedure may use, built once at start-up by `createServices` and passed down,
 * so tests can build the same server around a test database.
 */
export interface Services {
  env: Env;
  prisma: PrismaClient;
  startedAt: Date;
  /** The local sandbox executor; without it the server has no execution routes (tests of other routes). */
  executor?: Executor;
  /** SANDBOX_FUSION_URL: `/run_code` and `/run_jupyter` run there instead of on `executor` (sessions stay local). */
  upstream?: UpstreamRunner;
  /** The global limit on executions; without one, a limit for this process alone. */
  gate?: ExecutionGate;
  /** The global limit on searches (/retrieve and search sessions); without one, a limit for this process alone. */
  searchLimiter?: Limiter;
  /** Set when this server holds an embedded data directory, for other processes to use it through (routes/local.ts). */
  local?: LocalAccess;
}
