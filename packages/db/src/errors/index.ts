export { DatabaseError, isDatabaseError } from './database-error';
export { DatabaseUnreachableError } from './database-unreachable-error';
export { MigrationError } from './migration-error';
export { EmbeddedDatabaseError } from './embedded-database-error';
