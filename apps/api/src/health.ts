import { pathToFileURL } from 'node:url';
import type { Health } from '@fusebox/api-router';
import { describeTarget } from '@fusebox/db/database';
import { databaseTarget } from './database';
import type { Services } from './services';
import { VERSION } from './version';

const DATABASE_CHECK_TIMEOUT_MS = 2_000;

/** What `/health` and the `health` tRPC procedure report: the version, uptime and a live database round trip. */
export async function checkHealth(services: Services): Promise<Health> {
  const { mode, location } = describeTarget(databaseTarget(services.env));
  const url = mode === 'embedded' ? pathToFileURL(location).href : location;
  const started = performance.now();
  let database: Health['database'];
  try {
    await Promise.race([
      services.prisma.$queryRaw`SELECT 1`,
      new Promise((_, reject) =>
        setTimeout(
          () => reject(new Error(`no answer within ${DATABASE_CHECK_TIMEOUT_MS} ms`)),
          DATABASE_CHECK_TIMEOUT_MS,
        ).unref(),
      ),
    ]);
    database = {
      status: 'ok',
      mode,
      url,
      latencyMs: round(performance.now() - started),
      error: null,
    };
  } catch (error) {
    database = {
      status: 'error',
      mode,
      url,
      latencyMs: null,
      error: error instanceof Error ? (error.message.split('\n').at(-1) ?? error.message) : String(error),
    };
  }
  return {
    status: database.status === 'ok' ? 'ok' : 'degraded',
    version: VERSION,
    uptimeSeconds: Math.round((Date.now() - services.startedAt.getTime()) / 1000),
    database,
  };
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
