import type { PGlite, Transaction } from '@electric-sql/pglite';
import type { SqlClient, SqlStatements, SqlTransaction } from './sql-client';

/**
 * PGlite reads a COPY's input from a Blob held in memory, so a long stream of lines is loaded in pieces of
 * about this many bytes, each its own COPY (in the same transaction).
 */
const COPY_CHUNK_BYTES = 8 * 1024 * 1024;

/**
 * The embedded database's single session as a SqlClient. PGlite runs one statement or transaction at a time, so
 * a transaction here also holds back every other caller (Prisma included) until it ends.
 */
export function pgliteSqlClient(pglite: PGlite): SqlClient {
  return {
    ...statements(pglite),
    transaction: (fn) => pglite.transaction((tx) => fn(transaction(tx))),
    close: () => pglite.close(),
  };
}

function statements(session: PGlite | Transaction): SqlStatements {
  return {
    async query<Row extends Record<string, unknown>>(sql: string, params?: unknown[]) {
      const result = await session.query<Row>(sql, params);
      return { rows: result.rows };
    },
    async exec(sql: string) {
      await session.exec(sql);
    },
  };
}

function transaction(tx: Transaction): SqlTransaction {
  return {
    ...statements(tx),
    async copyCsv(target, lines) {
      const copy = async (parts: string[]) => {
        await tx.query(`COPY ${target} FROM '/dev/blob' WITH (FORMAT csv)`, [], { blob: new Blob(parts) });
      };
      let parts: string[] = [];
      let bytes = 0;
      for await (const line of lines) {
        parts.push(line);
        bytes += line.length;
        if (bytes >= COPY_CHUNK_BYTES) {
          await copy(parts);
          parts = [];
          bytes = 0;
        }
      }
      if (parts.length > 0) await copy(parts);
    },
  };
}
