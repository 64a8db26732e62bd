/** The command that starts this machine's Postgres cluster, quoted in connection errors. */
export const START_POSTGRES_HINT =
  'start it with: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start';

/**
 * Parses a Postgres connection URL, throwing a TypeError that says what is wrong with it.
 *
 * @example
 * parseDatabaseUrl('postgresql://postgres@127.0.0.1:5432/fusebox').database // 'fusebox'
 */
export function parseDatabaseUrl(url: string): { url: URL; database: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`expected a postgresql:// URL, got ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== 'postgresql:' && parsed.protocol !== 'postgres:') {
    throw new TypeError(`expected a postgresql:// URL, got protocol ${JSON.stringify(parsed.protocol)}`);
  }
  if (!parsed.hostname) throw new TypeError(`expected a host in ${redactDatabaseUrl(url)}`);
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (!database) throw new TypeError(`expected a database name in ${redactDatabaseUrl(url)}`);
  return { url: parsed, database };
}

/** The URL with its password replaced, safe to print in logs and errors. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparseable URL>';
  }
}

/** The same server and credentials, pointed at another database. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(database)}`;
  return parsed.toString();
}
