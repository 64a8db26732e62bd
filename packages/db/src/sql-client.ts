import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { DatabaseUnreachableError } from './errors/database-unreachable-error';

/** The statements every SQL session runs, in a transaction or not. */
export interface SqlStatements {
  query<Row extends Record<string, unknown> = Record<string, unknown>>(
    sql: string,
    params?: unknown[],
  ): Promise<{ rows: Row[] }>;
  /** Runs a script of several statements, without parameters. */
  exec(sql: string): Promise<void>;
}

/** Inside `SqlClient.transaction`: the same statements, plus bulk loading. */
export interface SqlTransaction extends SqlStatements {
  /**
   * Loads CSV lines (each ending in a newline) into `target`, `"table" ("column", …)`, with COPY: the fastest
   * way in, with no statement per row.
   */
  copyCsv(target: string, lines: AsyncIterable<string> | Iterable<string>): Promise<void>;
}

/**
 * One SQL session, on Postgres (`pgSqlClient`) or on the embedded database (`openEmbeddedDatabase(…).sql`): what
 * migrations, imports and exports use where Prisma has no API (COPY, cursors, DDL).
 */
export interface SqlClient extends SqlStatements {
  /**
   * Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. The session is one
   * connection (PGlite has only one), so other statements on this client wait until the transaction ends; inside
   * `fn`, use `tx` only.
   */
  transaction<T>(fn: (tx: SqlTransaction) => Promise<T>): Promise<T>;
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

/** Bytes of CSV per message to the server. */
const COPY_WRITE_BYTES = 256 * 1024;

/**
 * Joins COPY lines into bigger writes. A line per socket write cost an import of 100k samples 10 s of CPU in
 * syscalls and message framing, and more when the lines are short (a search-index row is a few dozen bytes).
 */
async function* batched(lines: AsyncIterable<string> | Iterable<string>): AsyncGenerator<string> {
  let batch = '';
  for await (const line of lines) {
    batch += line;
    if (batch.length >= COPY_WRITE_BYTES) {
      yield batch;
      batch = '';
    }
  }
  if (batch) yield batch;
}

/** Wraps a pg.Client as a SqlClient. */
export function pgSqlClient(client: pg.Client): SqlClient {
  const statements: SqlStatements = {
    async query<Row extends Record<string, unknown>>(sql: string, params?: unknown[]) {
      const result = await client.query<Row>(sql, params);
      return { rows: result.rows };
    },
    async exec(sql: string) {
      await client.query(sql);
    },
  };
  const transaction: SqlTransaction = {
    ...statements,
    async copyCsv(target, lines) {
      await pipeline(
        Readable.from(batched(lines)),
        client.query(copyFrom(`COPY ${target} FROM STDIN WITH (FORMAT csv)`)),
      );
    },
  };
  const exclusive = serialize();
  return {
    query: (sql, params) => exclusive(() => statements.query(sql, params)),
    exec: (sql) => exclusive(() => statements.exec(sql)),
    transaction: (fn) =>
      exclusive(async () => {
        await client.query('BEGIN');
        try {
          const result = await fn(transaction);
          await client.query('COMMIT');
          return result;
        } catch (error) {
          await client.query('ROLLBACK').catch(() => {});
          throw error;
        }
      }),
    close: () => exclusive(() => client.end()),
  };
}

/** Runs the functions given to it one at a time, in call order, as PGlite does with its single session. */
function serialize(): <T>(fn: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (fn) => {
    const run = tail.then(fn);
    tail = run.catch(() => {});
    return run;
  };
}

/** True when the error came from a Postgres server (it carries a SQLSTATE), not from the network. */
export function isServerAnswer(error: unknown): error is Error & { code: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}
