import { createPrismaClient } from '@fusebox/db/client';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { readEnv } from '../src/env';
import type { Services } from '../src/services';
import { createCaller } from '../src/trpc/router';

export interface RouterContext {
  database: TestDatabase;
  services: Services;
  caller: ReturnType<typeof createCaller>;
  close(): Promise<void>;
}

/** A fresh migrated database, the services around it and a tRPC caller: what a router test calls through. */
export async function createRouterContext(): Promise<RouterContext> {
  const database = await createTestDatabase();
  const services: Services = {
    env: readEnv({ DATABASE_URL: database.url }),
    prisma: createPrismaClient(database.url),
    startedAt: new Date(),
  };
  return {
    database,
    services,
    caller: createCaller(services),
    async close() {
      await services.prisma.$disconnect();
      await database.drop();
    },
  };
}
