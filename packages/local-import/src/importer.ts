import type { PrismaClient } from '@fusebox/db/client';
import type { Database } from '@fusebox/db/database';
import { type CorpusImportSummary, type ImportCorpusOptions, importCorpus } from '@fusebox/retrieval';
import { type ImportDumpOptions, type ImportSummary, importDump } from '@fusebox/rollouts';
import { type TaskImportOptions, type TaskImportSummary, importTasks } from '@fusebox/tasks';

/**
 * Where a command's imports go: straight into a database it opened, or through the `fusebox serve` that holds
 * the embedded data directory (server-importer.ts). Either way the same callbacks report progress and problems.
 */
export interface Importer {
  importTasks(options: TaskImportOptions): Promise<TaskImportSummary>;
  importDump(options: ImportDumpOptions): Promise<ImportSummary>;
  /** A Search-R1 corpus for `/retrieve` and search tasks. */
  importCorpus(options: ImportCorpusOptions): Promise<CorpusImportSummary>;
  /** For reading what is there; through a server, it can only read. */
  reader: PrismaClient;
  close(): Promise<void>;
}

/** Imports into a database this process opened; closing the importer closes the database. */
export function databaseImporter(database: Database): Importer {
  return {
    importTasks: (options) => importTasks(database.prisma, options),
    importDump: (options) =>
      importDump(database.sql, database.openSql ? { openSession: database.openSql, ...options } : options),
    importCorpus: (options) => importCorpus(database.sql, options),
    reader: database.prisma,
    close: () => database.close(),
  };
}
