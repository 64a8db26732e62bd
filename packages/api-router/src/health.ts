import type { DatabaseMode } from '@fusebox/db/database';

/** What `/health` and the `health` procedure report: the version, uptime and a live database round trip. */
export interface Health {
  status: 'ok' | 'degraded';
  version: string;
  uptimeSeconds: number;
  database: {
    status: 'ok' | 'error';
    /** `embedded` (PGlite, one process) or `postgres`. */
    mode: DatabaseMode;
    /** Where the data lives: the Postgres URL without its password, or the embedded data directory as a file URL. */
    url: string;
    latencyMs: number | null;
    error: string | null;
  };
}
