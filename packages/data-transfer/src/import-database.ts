import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import type { Database } from '@fusebox/db/database';
import { quoteIdentifier } from '@fusebox/db/ensure-database';
import { isServerAnswer } from '@fusebox/db/sql-client';
import { readMigrations } from '@fusebox/db/migrations';
import type { z } from 'zod';
import { describeIssues } from '@fusebox/input';
import { DataTransferError } from './data-transfer-error';
import { dataTables } from './database-tables';
import type { TransferProgress } from './export-database';
import { type ExportHeader, endLineSchema, exportHeaderSchema, tableLineSchema } from './export-format';

/** Rows inserted per statement, and the most characters of JSON one statement carries. */
const BATCH_ROWS = 500;
const BATCH_CHARS = 4 * 1024 * 1024;

/** Postgres's code for a row that references one that is not there. */
const FOREIGN_KEY_VIOLATION = '23503';

export interface ImportSummary {
  header: ExportHeader;
  /** Per table: the rows in the file and how many of them were new here. */
  tables: { name: string; rows: number; added: number }[];
  rows: number;
  added: number;
}

/**
 * Loads an export (export-format.ts) into `database`, which must already be migrated (`openDatabase` does it) at
 * least as far as the export's source. Everything goes in one transaction: a failure leaves the database as it
 * was. Rows whose key is already there are left alone, so importing the same file again adds nothing.
 */
export async function importDatabase(
  database: Database,
  file: string,
  options: {
    onProgress?(progress: TransferProgress): void;
    /** After each table, with its rows and how many of them were new. */
    onTable?(table: ImportSummary['tables'][number]): void;
  } = {},
): Promise<ImportSummary> {
  const { size } = await stat(file).catch((error: unknown) => {
    throw new DataTransferError(
      'FUSEBOX_TRANSFER_NO_FILE',
      `cannot read ${file}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  });
  const input = createReadStream(file);
  const progress: TransferProgress = { rowsDone: 0, rowsTotal: 0, bytesDone: 0, bytesTotal: size };
  input.on('data', (chunk) => (progress.bytesDone += chunk.length));
  const gunzip = createGunzip();
  const lines = createInterface({ input: input.pipe(gunzip), crlfDelay: Infinity })[Symbol.asyncIterator]();
  // A file that is not gzip fails in the decompressor, which the line reader does not pass on.
  let broken: Error | undefined;
  gunzip.on('error', (error) => (broken = error));
  const next = async (what: string): Promise<string> => {
    const line = await lines.next().catch((error: unknown) => {
      throw notAnExport(file, error);
    });
    if (broken) throw notAnExport(file, broken);
    if (line.done) {
      throw new DataTransferError(
        'FUSEBOX_TRANSFER_TRUNCATED',
        `${file} ends before ${what}: the export is incomplete (was it cut short while copying?)`,
      );
    }
    return line.value;
  };
  const parse = <T>(schema: z.ZodType<T>, line: string, what: string): T => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw notAnExport(file, error);
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success)
      throw new DataTransferError(
        'FUSEBOX_TRANSFER_NOT_AN_EXPORT',
        `${file}: ${what}: ${describeIssues(parsed.error)}`,
      );
    return parsed.data;
  };

  try {
    const header = parse(exportHeaderSchema, await next('its header'), 'not a Fusebox export');
    await checkCompatible(database, file, header);
    progress.rowsTotal = header.tables.reduce((sum, table) => sum + table.rows, 0);
    options.onProgress?.(progress);
    const tables = await database.sql.transaction(async (tx) => {
      const loaded: ImportSummary['tables'] = [];
      for (const table of header.tables) {
        const section = parse(tableLineSchema, await next(`the table ${table.name}`), 'a table line');
        if (section.table !== table.name || section.rows !== table.rows) {
          throw new DataTransferError(
            'FUSEBOX_TRANSFER_NOT_AN_EXPORT',
            `${file}: expected the table ${table.name} (${table.rows} rows), found ${section.table} (${section.rows})`,
          );
        }
        const columns = table.columns.map(quoteIdentifier).join(', ');
        const insert = `WITH inserted AS (
            INSERT INTO ${quoteIdentifier(table.name)} (${columns})
            SELECT ${columns} FROM json_populate_recordset(NULL::${quoteIdentifier(table.name)}, $1::json)
            ON CONFLICT DO NOTHING RETURNING 1
          ) SELECT count(*)::int AS n FROM inserted`;
        let added = 0;
        let batch: string[] = [];
        let chars = 0;
        const flush = async () => {
          if (batch.length === 0) return;
          try {
            const { rows } = await tx.query<{ n: number }>(insert, [`[${batch.join(',')}]`]);
            added += rows[0]?.n ?? 0;
          } catch (error) {
            throw conflictOrRethrow(table.name, error);
          }
          progress.rowsDone += batch.length;
          options.onProgress?.(progress);
          batch = [];
          chars = 0;
        };
        for (let row = 0; row < table.rows; row += 1) {
          const line = await next(`row ${row + 1} of ${table.name}`);
          batch.push(line);
          chars += line.length;
          if (batch.length >= BATCH_ROWS || chars >= BATCH_CHARS) await flush();
        }
        await flush();
        loaded.push({ name: table.name, rows: table.rows, added });
        options.onTable?.(loaded.at(-1)!);
      }
      const end = parse(endLineSchema, await next('its end'), 'the end line');
      if (end.rows !== progress.rowsTotal) {
        throw new DataTransferError(
          'FUSEBOX_TRANSFER_NOT_AN_EXPORT',
          `${file}: the end line counts ${end.rows} rows, the tables ${progress.rowsTotal}`,
        );
      }
      return loaded;
    });
    // Fresh planner statistics for the tables that just grew (autovacuum would get there, but only later).
    await database.sql.exec('ANALYZE');
    return {
      header,
      tables,
      rows: progress.rowsTotal,
      added: tables.reduce((sum, table) => sum + table.added, 0),
    };
  } finally {
    input.destroy();
  }
}

/** Refuses, before writing anything, an export this version cannot take. */
async function checkCompatible(database: Database, file: string, header: ExportHeader): Promise<void> {
  const known = new Set((await readMigrations()).map((migration) => migration.name));
  const unknown = header.migrations.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new DataTransferError(
      'FUSEBOX_TRANSFER_NEWER_VERSION',
      `${file} was exported by a newer Fusebox (${header.fuseboxVersion}): its database had migrations this ` +
        `version does not know (${unknown.join(', ')}); import it with that version or a later one`,
    );
  }
  const here = new Map((await dataTables(database.sql)).map((table) => [table.name, new Set(table.columns)]));
  // Every migration the export's database had is known here: if it had fewer, it was an older schema.
  const older = header.migrations.length < known.size;
  for (const table of header.tables) {
    const columns = here.get(table.name);
    const missing = columns ? table.columns.filter((column) => !columns.has(column)) : [];
    if (!columns || missing.length > 0) {
      const of = `${missing.join(', ')} of the table ${table.name}`;
      throw new DataTransferError(
        'FUSEBOX_TRANSFER_SCHEMA',
        older
          ? `${file} was exported by an older Fusebox, whose ${columns ? `column ${of}` : `table ${table.name}`} ` +
              `a later migration replaced: import it with the version that exported it (${header.fuseboxVersion}), ` +
              'then `fusebox db migrate` with this one, which carries the data over'
          : `${file} has ${columns ? `columns ${of}` : `the table ${table.name}`}, ` +
              `which ${database.location} lacks; migrate it with \`fusebox db migrate\` from the same Fusebox version`,
      );
    }
  }
}

function notAnExport(file: string, cause: unknown): DataTransferError {
  return new DataTransferError(
    'FUSEBOX_TRANSFER_NOT_AN_EXPORT',
    `${file} is not a Fusebox export (${cause instanceof Error ? cause.message : String(cause)}); ` +
      'make one with `fusebox db export FILE`',
    { cause },
  );
}

/**
 * A row that references one the import skipped (because the target already had a different row with the same
 * unique value, such as a rollout run's name) cannot go in: say so rather than show Postgres's message alone.
 */
function conflictOrRethrow(table: string, error: unknown): unknown {
  if (!isServerAnswer(error) || error.code !== FOREIGN_KEY_VIOLATION) return error;
  return new DataTransferError(
    'FUSEBOX_TRANSFER_CONFLICT',
    `cannot import ${table}: ${error.message}. The database already holds other rows with the same names or ids ` +
      'as the export (for example a rollout run or task of the same name); import into an empty database, or ' +
      'remove those rows first. Nothing was imported.',
    { cause: error },
  );
}
