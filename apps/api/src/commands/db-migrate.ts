import { redactDatabaseUrl } from '@fusebox/db/database-url';
import { prepareDatabase } from '../database';
import { readEnv } from '../env';
import type { Command } from './command';

export const dbMigrateCommand: Command = {
  path: ['db', 'migrate'],
  summary: 'create the database if missing and apply pending migrations',
  help: ['Uses DATABASE_URL. Safe to run while servers are up, and a no-op when nothing is pending.'],
  options: {},
  async run() {
    const env = readEnv();
    const log = {
      info: (line: string) => console.log(line),
      warn: (line: string) => console.warn(`warning: ${line}`),
    };
    const result = await prepareDatabase(env.DATABASE_URL, log);
    console.log(
      `${redactDatabaseUrl(env.DATABASE_URL)}: ${result.applied.length} applied, ${result.alreadyApplied} already applied`,
    );
    return 0;
  },
};
