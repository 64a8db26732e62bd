import { resolve } from 'node:path';
import type { Database } from '@fusebox/db/database';
import type { ServerRecord } from '@fusebox/db/server-record';
import { consoleDatabaseLog, openDatabase } from '../database';
import { readEnv } from '../env';
import { holdingServer } from '@fusebox/local-import';

/**
 * Opens the database the environment names for a command that needs it to itself (migrate, export, import),
 * creating and migrating it as needed. When a running `fusebox serve` holds the embedded data directory, prints
 * `fusebox <command>: <why not>` and resolves to undefined: the command should exit 1. Any other failure to open is
 * thrown.
 */
export async function openCommandDatabase(
  command: string,
  whyNot: (held: { server: ServerRecord; dataDir: string }) => string,
): Promise<Database | undefined> {
  const env = readEnv();
  try {
    return await openDatabase(env, consoleDatabaseLog);
  } catch (error) {
    const server = await holdingServer(error);
    if (!server) throw error;
    console.error(`fusebox ${command}: ${whyNot({ server, dataDir: resolve(env.FUSEBOX_DATA_DIR) })}`);
    return undefined;
  }
}

/** How a refusal names the server that holds the data directory. */
export function heldBy({ server, dataDir }: { server: ServerRecord; dataDir: string }): string {
  return `the data directory ${dataDir} is held by the Fusebox server (pid ${server.pid}) at ${server.url}`;
}
