import pg from 'pg';
import { DatabaseUnreachableError } from './errors/database-unreachable-error';

/**
 * The little of a SQL connection that migrations and set-up need. A `pg.Client` provides it through
 * `connectPostgres`; an embedded database can provide it too.
 */
export interface SqlClient {
  query<Row extends Record<string, unknown> = Record<string, unknown>>(
    sql: string,
    params?: unknown[],
  ): Promise<{ rows: Row[] }>;
  /** Runs a script of several statements. */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

/** How long a connection attempt may take before Postgres counts as unreachable. */
export const CONNECT_TIMEOUT_MS = 4_000;

/** SQLSTATEs that mean "the server is there but this database is not". */
export const DATABASE_MISSING = '3D000';

/**
 * Opens one `pg.Client`. A server that does not answer becomes a DatabaseUnreachableError naming the URL;
 * any other error (a missing database, bad credentials) is rethrown as Postgres reported it.
 */
export async function connectPostgres(url: string, options: { timeoutMs?: number } = {}): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: options.timeoutMs ?? CONNECT_TIMEOUT_MS,
    keepAlive: true,
  });
  // An idle connection that the server drops must not crash the process; the next query reports it.
  client.on('error', () => {});
  try {
    await client.connect();
    return client;
  } catch (error) {
    await client.end().catch(() => {});
    if (isServerAnswer(error)) throw error;
    throw new DatabaseUnreachableError(url, error);
  }
}

/** Wraps a pg.Client as a SqlClient. */
export function pgSqlClient(client: pg.Client): SqlClient {
  return {
    async query<Row extends Record<string, unknown>>(sql: string, params?: unknown[]) {
      const result = await client.query<Row>(sql, params);
      return { rows: result.rows };
    },
    async exec(sql: string) {
      await client.query(sql);
    },
    async close() {
      await client.end();
    },
  };
}

/** True when the error came from a Postgres server (it carries a SQLSTATE), not from the network. */
export function isServerAnswer(error: unknown): error is Error & { code: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}
