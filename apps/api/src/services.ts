import type { PrismaClient } from '@fusebox/db/client';
import type { Env } from './env';

/**
 * Everything a route or a tRPC procedure may use, built once at start-up by `createServices` and passed down,
 * so tests can build the same server around a test database.
 */
export interface Services {
  env: Env;
  prisma: PrismaClient;
  startedAt: Date;
}
