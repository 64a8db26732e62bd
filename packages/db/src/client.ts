import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client';
import { CONNECT_TIMEOUT_MS } from './sql-client';
import { transactionOptions } from './transaction-options';

export type { PrismaClient } from './generated/prisma/client';

/** Default of `statementTimeoutMs`: long for the queries a request runs, short for a client to wait. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 5_000;

/**
 * How much longer than the statement timeout the client itself waits for an answer. A live server cancels a
 * slow statement itself (SQLSTATE 57014) and keeps the connection; only a frozen or partitioned one, which can
 * report nothing, is given up on by the client.
 */
const CLIENT_GRACE_MS = 1_000;

export interface PrismaClientOptions {
  /** Pool size (default 10). */
  maxConnections?: number;
  /** Longest any statement may run before Postgres cancels it (default 5 s); Infinity for none. */
  statementTimeoutMs?: number;
}

/**
 * A Prisma client on Postgres through `@prisma/adapter-pg`: no Rust engine at run time. Every wait on the
 * server is bounded: connecting, each statement on the server, and each answer on the client (a frozen server
 * answers nothing), so a sick database fails requests within seconds instead of stalling them.
 *
 * @example
 * const prisma = createPrismaClient('postgresql://postgres@127.0.0.1:5432/fusebox');
 * const latest = await prisma.execution.findMany({ take: 10, orderBy: { requestedAt: 'desc' } });
 */
export function createPrismaClient(url: string, options: PrismaClientOptions = {}): PrismaClient {
  const statementTimeoutMs = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  if (!(statementTimeoutMs > 0)) {
    throw new TypeError(`expected statementTimeoutMs to be a positive number, got ${statementTimeoutMs}`);
  }
  const bounded = Number.isFinite(statementTimeoutMs);
  const adapter = new PrismaPg({
    connectionString: url,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    ...(bounded
      ? { statement_timeout: statementTimeoutMs, query_timeout: statementTimeoutMs + CLIENT_GRACE_MS }
      : {}),
  });
  return new PrismaClient({
    adapter,
    transactionOptions: transactionOptions(CONNECT_TIMEOUT_MS + CLIENT_GRACE_MS),
  });
}
