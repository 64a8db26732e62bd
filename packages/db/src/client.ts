import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client';

export type { PrismaClient } from './generated/prisma/client';

/**
 * A Prisma client on Postgres through `@prisma/adapter-pg`: no Rust engine at run time.
 *
 * @example
 * const prisma = createPrismaClient('postgresql://postgres@127.0.0.1:5432/fusebox');
 * const latest = await prisma.execution.findMany({ take: 10, orderBy: { requestedAt: 'desc' } });
 */
export function createPrismaClient(url: string, options: { maxConnections?: number } = {}): PrismaClient {
  const adapter = new PrismaPg({
    connectionString: url,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: 4_000,
  });
  return new PrismaClient({ adapter });
}
