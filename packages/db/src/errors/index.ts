export {
  DATABASE_ERROR_CODES,
  DatabaseError,
  isDatabaseError,
  type DatabaseErrorCode,
} from './database-error';
export { DatabaseUnreachableError } from './database-unreachable-error';
export { MigrationError } from './migration-error';
export { EmbeddedDatabaseError } from './embedded-database-error';
