import { DatabaseError } from './database-error';

/**
 * A migration cannot be applied: it failed, it was edited after being applied, or an earlier attempt left it
 * half-done. `migration` names the folder.
 */
export class MigrationError extends DatabaseError {
  readonly migration: string;

  constructor(migration: string, message: string, options?: ErrorOptions) {
    super('FUSEBOX_DB_MIGRATION', message, options);
    this.migration = migration;
  }
}
