import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chown, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureDatabase } from '@fusebox/db/ensure-database';
import { migrate } from '@fusebox/db/migrate';
import { connectPostgres, pgSqlClient } from '@fusebox/db/sql-client';

const run = promisify(execFile);

/** A Postgres cluster of its own, on its own port, that a test or a benchmark may stop and start at will. */
export interface ThrowawayPostgres {
  /** A migrated `fusebox` database on it. */
  url: string;
  /** Stops the server (fast shutdown: every session is terminated) and waits until it is down. */
  stop(): Promise<void>;
  /** Starts it again and waits until it accepts connections. */
  start(): Promise<void>;
  /** Stops it and deletes its files. */
  destroy(): Promise<void>;
  /**
   * Sends `signal` to the server and every one of its processes: SIGSTOP freezes it (connections stay open and
   * nothing answers, as with a hung host), SIGCONT thaws it, SIGKILL crashes it (start() then recovers from the
   * WAL).
   */
  signal(signal: 'SIGSTOP' | 'SIGCONT' | 'SIGKILL'): Promise<void>;
}

/**
 * Creates, starts and migrates a throwaway cluster with `initdb`/`pg_ctl` from the installed Postgres (the
 * newest under /usr/lib/postgresql, or PG_BIN). Its socket and data live in a temporary directory. Postgres
 * refuses to run as root, so as root the cluster belongs to the `postgres` user.
 *
 * @example
 * const postgres = await startThrowawayPostgres({ maxConnections: 300 });
 * afterAll(() => postgres.destroy());
 */
export async function startThrowawayPostgres(
  options: { maxConnections?: number } = {},
): Promise<ThrowawayPostgres> {
  const bin = process.env.PG_BIN ?? (await newestPostgresBin());
  const dir = await mkdtemp(join(tmpdir(), 'fusebox-pg-'));
  const data = join(dir, 'data');
  const asRoot = userInfo().uid === 0;
  if (asRoot) await chown(dir, ...(await postgresIds()));
  const pg = (tool: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]) : run(join(bin, tool), args);

  const port = await freePort();
  await pg('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const serverOptions = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    `-c max_connections=${options.maxConnections ?? 100}`,
    '-c fsync=off',
  ].join(' ');
  const start = () => pg('pg_ctl', ['-D', data, '-o', serverOptions, '-l', join(dir, 'log'), '-w', 'start']);
  const stop = () => pg('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  await start();

  const url = `postgresql://postgres@127.0.0.1:${port}/fusebox`;
  await ensureDatabase(url);
  const sql = pgSqlClient(await connectPostgres(url));
  try {
    await migrate(sql);
  } finally {
    await sql.close();
  }

  return {
    url,
    stop: async () => void (await stop()),
    start: async () => void (await start()),
    async destroy() {
      await serverProcesses(data).then((pids) => pids.forEach((pid) => signalProcess(pid, 'SIGCONT')));
      await stop().catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
    async signal(signal) {
      // The postmaster last on the way down, so it cannot start replacements for the ones already stopped.
      const pids = await serverProcesses(data);
      for (const pid of signal === 'SIGCONT' ? pids : pids.reverse()) signalProcess(pid, signal);
      // A new postmaster refuses to start while a killed one's processes still hold its shared memory.
      if (signal === 'SIGKILL') {
        while (pids.some((pid) => existsSync(`/proc/${pid}/status`) && !isZombie(pid))) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        // Where nothing reaps the killed postmaster (no init in a container), its zombie keeps its pid alive, and
        // Postgres would take its lock files for a running server's; a rebooted host would not have them either.
        await rm(join(data, 'postmaster.pid'), { force: true });
        await rm(join(dir, `.s.PGSQL.${port}.lock`), { force: true });
      }
    },
  };
}

/** The postmaster (from its pid file) first, then its children. */
async function serverProcesses(data: string): Promise<number[]> {
  const pidFile = await readFile(join(data, 'postmaster.pid'), 'utf8').catch(() => '');
  const postmaster = Number(pidFile.split('\n')[0]);
  if (!Number.isSafeInteger(postmaster) || postmaster <= 0) return [];
  const children: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // Field 4, after the parenthesised command name, is the parent's pid.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (parent === postmaster) children.push(Number(entry));
  }
  return [postmaster, ...children];
}

function isZombie(pid: number): boolean {
  try {
    return /^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return true;
  }
}

function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Gone already.
  }
}

async function newestPostgresBin(): Promise<string> {
  const root = '/usr/lib/postgresql';
  const versions = (await readdir(root))
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  if (!versions[0]) throw new Error(`no Postgres server binaries under ${root}; set PG_BIN`);
  return join(root, versions[0], 'bin');
}

async function postgresIds(): Promise<[number, number]> {
  const { stdout } = await run('id', ['-u', 'postgres']);
  const { stdout: group } = await run('id', ['-g', 'postgres']);
  return [Number(stdout.trim()), Number(group.trim())];
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
