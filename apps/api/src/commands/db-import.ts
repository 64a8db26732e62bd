import { DataTransferError, importDatabase } from '@fusebox/data-transfer';
import { type Command, UsageError } from './command';
import { heldBy, openCommandDatabase } from './open-command-database';
import { progressBar } from './rollouts-progress';

export const dbImportCommand: Command = {
  path: ['db', 'import'],
  summary: 'load a file written by `fusebox db export` into this database (e.g. embedded data into Postgres)',
  args: 'FILE',
  help: [
    'Loads into the database the environment names (DATABASE_URL, or the embedded one in FUSEBOX_DATA_DIR),',
    'creating and migrating it first. All or nothing, in one transaction. Rows already there are kept as they',
    'are, so importing the same file again adds nothing.',
  ],
  options: {},
  async run(_values, positionals) {
    const [file, ...extra] = positionals;
    if (!file || extra.length > 0) throw new UsageError('expected exactly one file');
    const database = await openCommandDatabase(
      'db import',
      (held) => `${heldBy(held)}; stop it first, or import into a Postgres (DATABASE_URL)`,
    );
    if (!database) return 1;
    const bar = progressBar(process.stderr, 'rows');
    let last = { bytesDone: 0, bytesTotal: 0, samples: 0 };
    try {
      const summary = await importDatabase(database, file, {
        onProgress: ({ bytesDone, bytesTotal, rowsDone }) => {
          last = { bytesDone, bytesTotal, samples: rowsDone };
          bar.update(last);
        },
        // Off a terminal there is no bar: logs get a line per table.
        onTable: ({ name, rows, added }) => {
          if (!process.stderr.isTTY) console.error(`${name}: ${rows} rows, ${added} new`);
        },
      });
      bar.finish(last);
      const tables = summary.tables.map((table) => `${table.name} ${table.added}/${table.rows}`).join(', ');
      console.log(
        summary.added === 0
          ? `nothing new: all ${summary.rows.toLocaleString('en-US')} rows of ${file} were already in ${database.location}`
          : `imported ${summary.added.toLocaleString('en-US')} new rows into ${database.location} ` +
              `(${(summary.rows - summary.added).toLocaleString('en-US')} were already there): ${tables}`,
      );
      return 0;
    } catch (error) {
      bar.clear();
      if (!(error instanceof DataTransferError)) throw error;
      console.error(`fusebox db import: ${error.message}`);
      return 1;
    } finally {
      await database.close();
    }
  },
};
