import { DatabaseError } from './database-error';

/**
 * The embedded database cannot be used: its data directory is locked by another process, unreadable, or holds
 * something that is not a database. `dataDir` names the directory.
 */
export class EmbeddedDatabaseError extends DatabaseError {
  readonly dataDir: string;
  /** For a locked directory: the pid of the live process that holds it. */
  readonly holderPid: number | undefined;

  constructor(
    code: 'FUSEBOX_DB_DATA_DIR_LOCKED' | 'FUSEBOX_DB_DATA_DIR_UNUSABLE',
    dataDir: string,
    message: string,
    options?: ErrorOptions & { holderPid?: number },
  ) {
    super(code, message, options);
    this.dataDir = dataDir;
    this.holderPid = options?.holderPid;
  }
}
