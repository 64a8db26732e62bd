// Playwright's webServer: recreates the e2e database empty, then runs `fusebox serve` (API + dashboard) on it.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseDatabaseUrl, withDatabase } from '@fusebox/db/database-url';
import { quoteIdentifier } from '@fusebox/db/ensure-database';
import { connectPostgres } from '@fusebox/db/sql-client';
import { API_PORT, API_TOKEN, DASHBOARD_PORT, DATABASE_URL } from './stack';

const admin = await connectPostgres(withDatabase(DATABASE_URL, 'postgres'));
await admin.query(
  `DROP DATABASE IF EXISTS ${quoteIdentifier(parseDatabaseUrl(DATABASE_URL).database)} WITH (FORCE)`,
);
await admin.end();

const child = spawn(
  process.execPath,
  [fileURLToPath(new URL('../apps/api/bin/fusebox.js', import.meta.url)), 'serve'],
  {
    stdio: 'inherit',
    env: {
      ...process.env,
      DATABASE_URL,
      PORT: String(API_PORT),
      DASHBOARD_PORT: String(DASHBOARD_PORT),
      FUSEBOX_API_TOKEN: API_TOKEN,
      FUSEBOX_LOG_FORMAT: 'json',
    },
  },
);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 1));
