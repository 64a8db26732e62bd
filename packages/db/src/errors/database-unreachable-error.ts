import { START_POSTGRES_HINT, redactDatabaseUrl } from '../database-url';
import { DatabaseError } from './database-error';

/** Postgres did not answer at the configured URL. The message names the URL and how to start Postgres. */
export class DatabaseUnreachableError extends DatabaseError {
  readonly url: string;

  constructor(url: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      'FUSEBOX_DB_UNREACHABLE',
      `cannot reach Postgres at ${redactDatabaseUrl(url)} (${reason}); ${START_POSTGRES_HINT}; or leave DATABASE_URL unset to use the embedded database`,
      { cause },
    );
    this.url = redactDatabaseUrl(url);
  }
}
