import { pathToFileURL } from 'node:url';
import { type DatabaseTarget, describeTarget } from '@fusebox/db/database';
import { z } from 'zod';
import { DemoSetupError } from './demo-setup-error';
import type { FuseboxApi } from './fusebox-api';
import { FuseboxApiError } from './fusebox-api-error';
import { gateLoad, readServerLoad } from './server-load';

const healthSchema = z.object({
  status: z.string(),
  version: z.string(),
  database: z.object({
    status: z.string(),
    mode: z.enum(['embedded', 'postgres']),
    url: z.string(),
    error: z.string().nullable(),
  }),
});

/** What the demo needs to know of the server before it starts. */
export interface ServerInfo {
  version: string;
  /** The global limit on executions, when the server's limiter key could be told (see `gateLoad`). */
  limit: number | null;
}

/**
 * Makes sure the server at `api.url` is a Fusebox API that answers, accepts the token, and stores its data in
 * `database`: the demo writes its tasks and rollouts there, and they would be invisible to a server on another
 * database. Throws DemoSetupError saying what to do otherwise.
 */
export async function checkServer(
  api: FuseboxApi,
  { database, limiterKey }: { database: DatabaseTarget; limiterKey: string },
  signal?: AbortSignal,
): Promise<ServerInfo> {
  let health;
  try {
    health = await api.get('/health', healthSchema, signal ? { signal } : {});
  } catch (error) {
    throw setupErrorOf(error, api.url);
  }
  if (health.database.status !== 'ok') {
    throw new DemoSetupError(
      `the server at ${api.url} cannot reach its database ${health.database.url}: ${health.database.error ?? 'unknown error'}`,
    );
  }
  const { mode, location } = describeTarget(database);
  if (mode === 'postgres' && databaseKey(health.database.url) !== databaseKey(location)) {
    throw new DemoSetupError(
      `the server at ${api.url} uses the database ${health.database.url}, but DATABASE_URL here is ${location}. ` +
        'The demo imports its tasks and rollouts there, so run it with the same DATABASE_URL as the server.',
    );
  }
  if (mode === 'embedded' && health.database.url !== pathToFileURL(location).href) {
    throw new DemoSetupError(
      `the server at ${api.url} uses the database ${health.database.url}, but here DATABASE_URL is unset and ` +
        `FUSEBOX_DATA_DIR is ${location}. The demo imports its tasks and rollouts there, so run it with the ` +
        'same DATABASE_URL (or FUSEBOX_DATA_DIR) as the server.',
    );
  }
  const keys = await readServerLoad(api, signal).catch(() => []);
  return { version: health.version, limit: gateLoad(keys, limiterKey)?.limit ?? null };
}

function setupErrorOf(error: unknown, url: string): unknown {
  if (!(error instanceof FuseboxApiError)) return error;
  if (error.status === null) {
    return new DemoSetupError(
      `no Fusebox API answers at ${url} (${error.message}). Start it with \`npm start\` in another ` +
        'terminal, or point the demo at it with --api-url.',
      { cause: error },
    );
  }
  if (error.status === 401) {
    return new DemoSetupError(
      `the API at ${url} wants a bearer token: pass --token or set FUSEBOX_API_TOKEN to the server's.`,
      { cause: error },
    );
  }
  return new DemoSetupError(`the API at ${url} failed its health check: ${error.message}`, {
    cause: error,
  });
}

/** Host, port and database name: two URLs naming the same database compare equal, passwords and options aside. */
function databaseKey(url: string): string {
  try {
    const parsed = new URL(url);
    const host = parsed.hostname === 'localhost' ? '127.0.0.1' : parsed.hostname;
    return `${host}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return url;
  }
}
