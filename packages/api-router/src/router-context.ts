import type { PrismaClient } from '@fusebox/db/client';
import type { DashboardLimits } from './dashboard-limits';
import type { Health } from './health';
import type { LanguageRow } from './languages';
import type { LiveLoad } from './live-load';

/**
 * What every procedure may use, provided by the host (apps/api) from its services: the database, and what only
 * the running server knows (its health, and the load of its gate and executor).
 */
export interface RouterContext {
  prisma: PrismaClient;
  health: () => Promise<Health>;
  /** The load now: every limiter key's permits in flight and waiters, and the host's executor. */
  load: (signal?: AbortSignal) => Promise<LiveLoad>;
  /** The same, once a second until `signal` aborts; every subscriber of one server shares one sampler. */
  watchLoad: (signal: AbortSignal) => AsyncIterable<LiveLoad>;
  /** Every SandboxFusion language as the host's executor runs it; empty without a local executor. */
  languages: () => Promise<LanguageRow[]>;
  /** What bounds the answers (pages, text, exports, charts) and how often live views read changes. */
  limits: DashboardLimits;
}
