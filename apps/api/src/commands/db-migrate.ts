import { resolve } from 'node:path';
import { consoleDatabaseLog, openDatabase } from '../database';
import { readEnv } from '../env';
import { holdingServer } from '../local-import/holding-server';
import type { Command } from './command';

export const dbMigrateCommand: Command = {
  path: ['db', 'migrate'],
  summary: 'create the database if missing and apply pending migrations',
  help: [
    'Uses DATABASE_URL (safe to run while servers are up), or the embedded database in FUSEBOX_DATA_DIR.',
    'A no-op when nothing is pending. `fusebox serve` migrates at start-up as well.',
  ],
  options: {},
  async run() {
    const env = readEnv();
    let database;
    try {
      database = await openDatabase(env, consoleDatabaseLog);
    } catch (error) {
      const server = await holdingServer(error);
      if (!server) throw error;
      console.error(
        `fusebox db migrate: the data directory ${resolve(env.FUSEBOX_DATA_DIR)} is held by the Fusebox server ` +
          `(pid ${server.pid}) at ${server.url}, which applied its migrations when it started; restart it to ` +
          'apply new ones',
      );
      return 1;
    }
    const { applied, alreadyApplied } = database.migrations;
    await database.close();
    console.log(`${database.location}: ${applied.length} applied, ${alreadyApplied} already applied`);
    return 0;
  },
};
