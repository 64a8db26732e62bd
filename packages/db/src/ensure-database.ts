import { parseDatabaseUrl, withDatabase } from './database-url';
import { DATABASE_MISSING, connectPostgres, isServerAnswer } from './sql-client';

const DUPLICATE_DATABASE = '42P04';

/**
 * Creates the URL's database when the server has none by that name. Returns true if it created it.
 * Safe to race: a concurrent creator's success counts as ours.
 *
 * @example
 * await ensureDatabase('postgresql://postgres@127.0.0.1:5432/fusebox');
 */
export async function ensureDatabase(url: string): Promise<boolean> {
  const { database } = parseDatabaseUrl(url);
  try {
    const client = await connectPostgres(url);
    await client.end();
    return false;
  } catch (error) {
    if (!isServerAnswer(error) || error.code !== DATABASE_MISSING) throw error;
  }
  const admin = await connectPostgres(withDatabase(url, 'postgres'));
  try {
    await admin.query(`CREATE DATABASE ${quoteIdentifier(database)}`);
    return true;
  } catch (error) {
    if (isServerAnswer(error) && error.code === DUPLICATE_DATABASE) return false;
    throw error;
  } finally {
    await admin.end();
  }
}

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
