import type { DatabaseTarget } from '@fusebox/db/database';
import { portSetting as port, readEnvironment } from '@fusebox/input';
import { z } from 'zod';

/**
 * The server's settings the demo reads to find it and its database. The defaults are the server's own
 * (apps/api/src/env.ts, the README's configuration table), so a demo run with the environment `npm start` had
 * reaches that server.
 */
const demoEnvSchema = z.object({
  PORT: port(8080),
  DASHBOARD_PORT: port(3000),
  DATABASE_URL: z.string().optional(),
  FUSEBOX_DATA_DIR: z.string().min(1).default('.fusebox'),
  FUSEBOX_API_TOKEN: z.string().min(1).optional(),
  FUSEBOX_LIMITER_KEY: z.string().min(1).default('run_code'),
});

export type DemoEnv = z.output<typeof demoEnvSchema>;

/** The demo's settings from the environment; an empty variable counts as unset, as the server reads it. */
export function readDemoEnv(source: NodeJS.ProcessEnv = process.env): DemoEnv {
  return readEnvironment(demoEnvSchema, source);
}

/** DATABASE_URL set: that Postgres; unset: the embedded database in FUSEBOX_DATA_DIR, as the server picks. */
export function demoDatabaseTarget(env: Pick<DemoEnv, 'DATABASE_URL' | 'FUSEBOX_DATA_DIR'>): DatabaseTarget {
  return env.DATABASE_URL ? { url: env.DATABASE_URL } : { dataDir: env.FUSEBOX_DATA_DIR };
}
