import { createHash } from 'node:crypto';
import { readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { type Server, createServer } from 'node:net';
import { join } from 'node:path';
import { EmbeddedDatabaseError } from './errors/embedded-database-error';

/** Names the holder's pid, for messages and for finding a holding server; the lock itself is a socket. */
const LOCK_FILE = 'fusebox.lock';

/**
 * Directories this process holds: binding the socket twice in one process would fail the same way as another
 * process holding it, and the message would then name ourselves.
 */
const held = new Set<string>();

/**
 * Takes the data directory for this process. The lock is a listening socket in Linux's abstract namespace, named
 * after the directory's device and inode: the kernel lets one process bind a name, and frees it the instant that
 * process dies, however it dies. So there is no stale lock to take over, and no race in taking one over (a lock
 * file alone cannot give both: the takeover of a dead holder's file can hand the directory to two processes).
 * `fusebox.lock` beside it names the holder's pid. Processes must share a network namespace to see each other's
 * lock, as they do on one machine outside containers. Returns the release function.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  if (held.has(dataDir)) {
    throw new EmbeddedDatabaseError(
      'FUSEBOX_DB_DATA_DIR_LOCKED',
      dataDir,
      `the data directory ${dataDir} is already open in this process; an embedded database has one owner`,
      { holderPid: process.pid },
    );
  }
  // Reserved before the first await, so two opens racing in this process cannot both take it.
  held.add(dataDir);
  let server: Server | undefined;
  try {
    server = await bindLock(await lockName(dataDir));
    if (!server) throw inUse(dataDir, await lockHolder(dataDir));
    await writeFile(join(dataDir, LOCK_FILE), `${process.pid}\n`);
  } catch (error) {
    held.delete(dataDir);
    server?.close();
    throw error;
  }
  const lock = server;
  return async () => {
    held.delete(dataDir);
    await unlink(join(dataDir, LOCK_FILE)).catch(() => {});
    lock.close();
  };
}

/** The live process that holds the data directory, if any (a dead holder's leftover file does not count). */
export async function lockHolder(dataDir: string): Promise<number | undefined> {
  const pid = Number.parseInt(await readFile(join(dataDir, LOCK_FILE), 'utf8').catch(() => ''), 10);
  return Number.isInteger(pid) && isAlive(pid) ? pid : undefined;
}

/** The directory's lock name: by device and inode, so every path to the same directory (links, mounts) agrees. */
async function lockName(dataDir: string): Promise<string> {
  const { dev, ino } = await stat(dataDir);
  const digest = createHash('sha256').update(`${dev}:${ino}`).digest('hex').slice(0, 32);
  return `\0fusebox-data-dir-${digest}`;
}

/** Binds the lock's socket; undefined when another live process holds it. */
async function bindLock(name: string): Promise<Server | undefined> {
  const server = createServer((socket) => socket.destroy());
  // The socket must not keep a finished process alive; the process holds the lock for as long as it lives.
  server.unref();
  const bound = await new Promise<boolean>((resolve, reject) => {
    server.once('listening', () => resolve(true));
    server.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' ? resolve(false) : reject(error),
    );
    server.listen(name);
  });
  if (!bound) return undefined;
  server.on('error', () => {});
  return server;
}

function inUse(dataDir: string, holder: number | undefined): EmbeddedDatabaseError {
  return new EmbeddedDatabaseError(
    'FUSEBOX_DB_DATA_DIR_LOCKED',
    dataDir,
    `the data directory ${dataDir} is in use by another Fusebox process${holder === undefined ? '' : ` (pid ${holder})`}; ` +
      'an embedded database serves one process. Stop that process, choose another FUSEBOX_DATA_DIR, or set ' +
      'DATABASE_URL to share a Postgres between processes.',
    holder === undefined ? {} : { holderPid: holder },
  );
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
