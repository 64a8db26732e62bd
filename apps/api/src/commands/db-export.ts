import { DataTransferError, exportDatabase } from '@fusebox/data-transfer';
import { type Command, UsageError } from './command';
import { heldBy, openCommandDatabase } from './open-command-database';
import { progressBar } from './rollouts-progress';
import { VERSION } from '../version';

export const dbExportCommand: Command = {
  path: ['db', 'export'],
  summary:
    'write the whole database (sessions, executions, tasks, rollouts) to one file, for `fusebox db import`',
  args: 'FILE',
  help: [
    'Reads the database the environment names: the embedded one in FUSEBOX_DATA_DIR when DATABASE_URL is',
    'unset (stop `fusebox serve` first), else DATABASE_URL. FILE is gzip-compressed JSON lines; it must not exist.',
    'To move from embedded mode to Postgres: `fusebox db export all.fusebox.gz`, then',
    '`DATABASE_URL=postgresql://… fusebox db import all.fusebox.gz`.',
  ],
  options: {},
  async run(_values, positionals) {
    const [file, ...extra] = positionals;
    if (!file || extra.length > 0) throw new UsageError('expected exactly one file');
    const database = await openCommandDatabase(
      'db export',
      (held) =>
        `${heldBy(held)}; stop it first: an export reads the embedded database itself, which one process at a ` +
        'time can open',
    );
    if (!database) return 1;
    const bar = progressBar(process.stderr, 'rows', (rows) => Math.round(rows).toLocaleString('en-US'));
    try {
      const summary = await exportDatabase(database, file, {
        fuseboxVersion: VERSION,
        onProgress: ({ rowsDone, rowsTotal }) =>
          bar.update({ bytesDone: rowsDone, bytesTotal: rowsTotal, samples: rowsDone }),
        // Off a terminal there is no bar: logs get a line per table.
        onTable: ({ name, rows }) => {
          if (!process.stderr.isTTY) console.error(`${name}: ${rows} rows`);
        },
      });
      bar.finish({ bytesDone: summary.rows, bytesTotal: summary.rows, samples: summary.rows });
      console.log(
        `exported ${summary.rows.toLocaleString('en-US')} rows from ${database.location} to ${file}: ` +
          summary.tables.map((table) => `${table.name} ${table.rows}`).join(', '),
      );
      return 0;
    } catch (error) {
      bar.clear();
      if (!(error instanceof DataTransferError)) throw error;
      console.error(`fusebox db export: ${error.message}`);
      return 1;
    } finally {
      await database.close();
    }
  },
};
