import type { Command } from './command';
import { heldBy, openCommandDatabase } from './open-command-database';

export const dbMigrateCommand: Command = {
  path: ['db', 'migrate'],
  summary: 'create the database if missing and apply pending migrations',
  help: [
    'Uses DATABASE_URL (safe to run while servers are up), or the embedded database in FUSEBOX_DATA_DIR.',
    'A no-op when nothing is pending. `fusebox serve` migrates at start-up as well.',
  ],
  options: {},
  async run() {
    const database = await openCommandDatabase(
      'db migrate',
      (held) => `${heldBy(held)}, which applied its migrations when it started; restart it to apply new ones`,
    );
    if (!database) return 1;
    const { applied, alreadyApplied } = database.migrations;
    await database.close();
    console.log(`${database.location}: ${applied.length} applied, ${alreadyApplied} already applied`);
    return 0;
  },
};
