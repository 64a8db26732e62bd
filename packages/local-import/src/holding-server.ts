import { EmbeddedDatabaseError } from '@fusebox/db/errors';
import { type ServerRecord, findHoldingServer } from '@fusebox/db/server-record';

/**
 * When opening the database failed because a running `fusebox serve` holds the embedded data directory: that
 * server's record, through which a command can still reach the data. Undefined for any other failure, and when
 * the holder is not a server (another command is using the directory).
 */
export async function holdingServer(error: unknown): Promise<ServerRecord | undefined> {
  if (!(error instanceof EmbeddedDatabaseError) || error.code !== 'FUSEBOX_DB_DATA_DIR_LOCKED')
    return undefined;
  return findHoldingServer(error.dataDir);
}
