import { createWriteStream, existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Database } from '@fusebox/db/database';
import { quoteIdentifier } from '@fusebox/db/ensure-database';
import { DataTransferError } from './data-transfer-error';
import { dataTables } from './database-tables';
import { EXPORT_FORMAT, EXPORT_VERSION, type ExportHeader } from './export-format';

/** Rows fetched from the cursor at a time. */
const FETCH_ROWS = 1000;

export interface TransferProgress {
  rowsDone: number;
  rowsTotal: number;
  /** Bytes of the export file read so far and in all (import only; 0 for an export). */
  bytesDone: number;
  bytesTotal: number;
}

export interface ExportSummary {
  tables: { name: string; rows: number }[];
  rows: number;
}

/**
 * Writes everything in `database` (sessions, executions, tasks, rollouts: every table but the migrations' own) to
 * `file` in the export format (export-format.ts), from one consistent snapshot. The file appears only once it is
 * complete; an existing file is never overwritten.
 */
export async function exportDatabase(
  database: Database,
  file: string,
  options: {
    /** The exporting Fusebox's version, written in the file's header. */
    fuseboxVersion: string;
    onProgress?(progress: TransferProgress): void;
    /** After each table, with its rows. */
    onTable?(table: { name: string; rows: number }): void;
  },
): Promise<ExportSummary> {
  if (existsSync(file)) {
    throw new DataTransferError(
      'FUSEBOX_TRANSFER_FILE_EXISTS',
      `${file} already exists; choose another file name, or remove it first`,
    );
  }
  const partial = `${file}.partial`;
  const gzip = createGzip();
  const written = pipeline(gzip, createWriteStream(partial));
  const write = async (value: unknown) => {
    if (!gzip.write(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`))
      await once(gzip, 'drain');
  };
  try {
    const summary = await database.sql.transaction(async (tx) => {
      // One snapshot for every table, so rows that reference each other are exported together.
      await tx.exec('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      const tables = await dataTables(tx);
      const counted = [];
      for (const table of tables) {
        const { rows } = await tx.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${quoteIdentifier(table.name)}`,
        );
        counted.push({ ...table, rows: rows[0]?.n ?? 0 });
      }
      const { rows: migrations } = await tx.query<{ name: string }>(
        `SELECT migration_name AS name FROM "_prisma_migrations"
         WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name`,
      );
      const header: ExportHeader = {
        format: EXPORT_FORMAT,
        version: EXPORT_VERSION,
        fuseboxVersion: options.fuseboxVersion,
        createdAt: new Date().toISOString(),
        source: { mode: database.mode, location: database.location },
        migrations: migrations.map((row) => row.name),
        tables: counted,
      };
      await write(header);
      const progress: TransferProgress = {
        rowsDone: 0,
        rowsTotal: counted.reduce((sum, table) => sum + table.rows, 0),
        bytesDone: 0,
        bytesTotal: 0,
      };
      options.onProgress?.(progress);
      for (const table of counted) {
        await write({ table: table.name, rows: table.rows });
        const columns = table.columns.map(quoteIdentifier).join(', ');
        await tx.query(
          `DECLARE fusebox_export NO SCROLL CURSOR FOR
           SELECT row_to_json(r)::text AS "row" FROM (SELECT ${columns} FROM ${quoteIdentifier(table.name)}) r`,
        );
        let fetched = 0;
        for (;;) {
          const { rows } = await tx.query<{ row: string }>(`FETCH ${FETCH_ROWS} FROM fusebox_export`);
          for (const { row } of rows) await write(row);
          fetched += rows.length;
          progress.rowsDone += rows.length;
          options.onProgress?.(progress);
          if (rows.length < FETCH_ROWS) break;
        }
        await tx.query('CLOSE fusebox_export');
        // The snapshot counted them: a difference would mean the export is not the snapshot it claims to be.
        if (fetched !== table.rows)
          throw new Error(`${table.name}: counted ${table.rows} rows, read ${fetched}`);
        options.onTable?.({ name: table.name, rows: fetched });
      }
      await write({ end: true, rows: progress.rowsTotal });
      return { tables: counted.map(({ name, rows }) => ({ name, rows })), rows: progress.rowsTotal };
    });
    gzip.end();
    await written;
    await rename(partial, file);
    return summary;
  } catch (error) {
    gzip.destroy();
    await written.catch(() => {});
    await rm(partial, { force: true });
    throw error;
  }
}
