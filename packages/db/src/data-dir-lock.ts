import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EmbeddedDatabaseError } from './errors/embedded-database-error';

const LOCK_FILE = 'fusebox.lock';

/**
 * Directories this process holds. The lock file cannot tell a second open in this process from a stale lock whose
 * pid was reused by us (a restarted container's pid 1), so this process keeps its own list.
 */
const held = new Set<string>();

/**
 * Takes the data directory for this process, postmaster.pid style: a lock file holding our pid, created
 * atomically (hard link of a temp file), and taken over when the pid it names is no longer alive.
 * Returns the release function.
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
  const lockPath = join(dataDir, LOCK_FILE);
  const candidate = join(dataDir, `${LOCK_FILE}.${process.pid}`);
  let locked = false;
  try {
    await writeFile(candidate, `${process.pid}\n`);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      try {
        await link(candidate, lockPath);
        locked = true;
        return async () => {
          held.delete(dataDir);
          await unlink(lockPath).catch(() => {});
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = await lockHolder(dataDir);
      if (holder !== undefined && holder !== process.pid) {
        throw new EmbeddedDatabaseError(
          'FUSEBOX_DB_DATA_DIR_LOCKED',
          dataDir,
          `the data directory ${dataDir} is in use by another Fusebox process (pid ${holder}); an embedded ` +
            'database serves one process. Stop that process, choose another FUSEBOX_DATA_DIR, or set DATABASE_URL ' +
            'to share a Postgres between processes.',
          { holderPid: holder },
        );
      }
      // The holder died without cleaning up: take the lock over.
      await unlink(lockPath).catch(() => {});
    }
    throw new EmbeddedDatabaseError(
      'FUSEBOX_DB_DATA_DIR_LOCKED',
      dataDir,
      `could not lock the data directory ${dataDir}`,
    );
  } finally {
    if (!locked) held.delete(dataDir);
    await unlink(candidate).catch(() => {});
  }
}

/** The live process that holds the data directory, if any (a dead holder's stale lock does not count). */
export async function lockHolder(dataDir: string): Promise<number | undefined> {
  const pid = Number.parseInt(await readFile(join(dataDir, LOCK_FILE), 'utf8').catch(() => ''), 10);
  return Number.isInteger(pid) && isAlive(pid) ? pid : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
