import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import pg from 'pg';
import { runFusebox } from '../run-fusebox';
import { retrieve } from './retrieve-client';

/**
 * Starts `fusebox serve` from `bin` (a checkout's apps/api/bin/fusebox.js) on `port` with `env` added, and
 * resolves once it answers /v1/ping. Its index is built on its first search: see {@link firstSearch}.
 */
export async function startServer(
  bin: string,
  port: number,
  env: Record<string, string>,
): Promise<ChildProcess> {
  const server = spawn(process.execPath, [bin, 'serve', '--no-dashboard'], {
    env: { ...process.env, ...env, PORT: String(port), FUSEBOX_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let attempt = 0; ; attempt++) {
    const up = await fetch(`http://127.0.0.1:${port}/v1/ping`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return server;
    if (server.exitCode !== null) throw new Error(`${bin}: the server exited`);
    if (attempt > 600) {
      server.kill('SIGTERM');
      throw new Error(`${bin}: the server did not start within 300 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * The server's first search, which waits for its index to be built; its wall-clock time in ms. A wait past
 * undici's 300 s for the answer's headers fails, and then it asks again.
 */
export async function firstSearch(port: number, query: string, topk: number): Promise<number> {
  const started = performance.now();
  for (let attempt = 0; ; attempt++) {
    const answered = await retrieve(port, [query], topk).then(
      () => true,
      async (error: unknown) => {
        if (attempt >= 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        return false;
      },
    );
    if (answered) return performance.now() - started;
  }
}

/** Stops the servers still running (SIGTERM, so they write what they hold) and waits for them to exit. */
export async function stopServers(servers: readonly ChildProcess[]): Promise<void> {
  const running = servers.filter((server) => server.exitCode === null);
  for (const server of running) server.kill('SIGTERM');
  await Promise.all(running.map((server) => once(server, 'exit')));
}

/**
 * Database `url` made afresh (dropped first if a run left it), migrated, with the JSONL corpus at `path` imported
 * as `corpus`: how long the import took, and how to drop the database again.
 */
export async function corpusDatabase(
  url: string,
  path: string,
  corpus: string,
): Promise<{ importMs: number; drop: () => Promise<void> }> {
  const name = new URL(url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: url.replace(/\/[^/]+$/, '/postgres') });
  await admin.connect();
  const drop = async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  };
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    const migrated = await runFusebox(['db', 'migrate'], { DATABASE_URL: url });
    if (migrated.code !== 0) throw new Error(migrated.out);
    const imported = await runFusebox(['corpus', 'import', path, '--name', corpus], { DATABASE_URL: url });
    if (imported.code !== 0) throw new Error(imported.out);
    return { importMs: imported.ms, drop };
  } catch (error) {
    await drop();
    throw error;
  }
}
