import { type DatabaseTarget, describeTarget, openDatabase } from '@fusebox/db/database';
import { holdingServer } from './holding-server';
import { type Importer, databaseImporter } from './importer';
import { serverImporter } from './server-importer';

export interface OpenedImporter {
  importer: Importer;
  /** Set when the imports go through the server that holds the data directory: a line saying so. */
  via?: string;
}

/**
 * Opens the database for a command's imports. When the embedded data directory is held by a running
 * `fusebox serve` (no other process can open it), the imports go through that server instead; any other failure
 * to open (Postgres unreachable, a directory held by another command) is thrown as it was.
 */
export async function openImporter(
  target: DatabaseTarget,
  options: { apiToken?: string | undefined; maxConnections?: number } = {},
): Promise<OpenedImporter> {
  const quiet = { info: () => {}, warn: (line: string) => console.warn(`warning: ${line}`) };
  try {
    return {
      importer: databaseImporter(
        await openDatabase(target, {
          log: quiet,
          ...(options.maxConnections ? { maxConnections: options.maxConnections } : {}),
        }),
      ),
    };
  } catch (error) {
    const server = await holdingServer(error);
    if (!server || 'url' in target) throw error;
    return {
      importer: serverImporter(target.dataDir, server, options.apiToken),
      via:
        `the data directory ${describeTarget(target).location} is held by the Fusebox server ` +
        `(pid ${server.pid}) at ${server.url}; importing through it`,
    };
  }
}
