import pg from 'pg';

/**
 * The little of a `pg.Client` the Postgres limiter uses. A `connect` factory returns one, connected. Each must be
 * its own Postgres session: the limiter checks that, because advisory locks are per session.
 */
export interface LimiterConnection {
  query(config: {
    name?: string;
    text: string;
    values?: unknown[];
  }): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
}

/** How long opening a connection may take before the database counts as unreachable. */
export const CONNECT_TIMEOUT_MS = 5_000;

/**
 * The default factory: a dedicated `pg.Client` per call (never a Pool, whose connections would share nothing but
 * would be handed to anyone), with TCP keepalives so a dead peer is noticed.
 */
export function connectionFactory(connectionString: string): () => Promise<LimiterConnection> {
  return async () => {
    const client = new pg.Client({
      connectionString,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    // Until a session watches it, an error on this client must not crash the process.
    client.on('error', () => {});
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    return client;
  };
}

/** Where a Postgres limiter's sessions come from: a connection string, or a factory of connected clients. */
export type ConnectionSource =
  | { connectionString: string; connect?: undefined }
  | { connect: () => Promise<LimiterConnection>; connectionString?: undefined };

/** Validates a ConnectionSource up front and returns its factory. */
export function resolveConnect(source: ConnectionSource): () => Promise<LimiterConnection> {
  const { connectionString, connect } = source as { connectionString?: unknown; connect?: unknown };
  if (connectionString !== undefined && connect !== undefined) {
    throw new TypeError('expected either connectionString or connect, not both');
  }
  if (typeof connect === 'function') return connect as () => Promise<LimiterConnection>;
  if (typeof connectionString === 'string' && connectionString !== '')
    return connectionFactory(connectionString);
  throw new TypeError(
    'expected connectionString (a postgresql:// URL) or connect (a function returning a connected client)',
  );
}
