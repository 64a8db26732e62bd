import type { Database } from '@fusebox/db/database';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { readEnv } from '../src/env';
import type { Services } from '../src/services';
import { createCaller } from '@fusebox/api-router';
import { trpcContext } from '../src/trpc-context';

export interface RouterContext {
  database: TestDatabase;
  /** The database as opened for the services, for what tRPC does not do (imports). */
  opened: Database;
  services: Services;
  caller: ReturnType<typeof createCaller>;
  close(): Promise<void>;
}

/**
 * Services around a test database, opened as `fusebox serve` opens it (embedded or Postgres: the mode under
 * test), with `env` on top of the database's own settings. Closing them closes the database.
 */
export async function openTestServices(
  database: TestDatabase,
  env: Record<string, string> = {},
): Promise<{ services: Services; database: Database; close: () => Promise<void> }> {
  const opened = await database.open();
  return {
    services: { env: readEnv({ ...database.env, ...env }), prisma: opened.prisma, startedAt: new Date() },
    database: opened,
    close: () => opened.close(),
  };
}

/** A fresh migrated database, the services around it and a tRPC caller: what a router test calls through. */
export async function createRouterContext(): Promise<RouterContext> {
  const database = await createTestDatabase();
  const { services, database: opened, close } = await openTestServices(database);
  return {
    database,
    opened,
    services,
    caller: createCaller(trpcContext(services)),
    async close() {
      await close();
      await database.drop();
    },
  };
}
