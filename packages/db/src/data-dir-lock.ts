import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EmbeddedDatabaseError } from './errors/embedded-database-error';

const LOCK_FILE = 'fusebox.lock';

/**
 * Takes the data directory for this process, postmaster.pid style: a lock file holding our pid, created
 * atomically (hard link of a temp file), and taken over when the pid it names is no longer alive.
 * Returns the release function.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const lockPath = join(dataDir, LOCK_FILE);
  const candidate = join(dataDir, `${LOCK_FILE}.${process.pid}`);
  await writeFile(candidate, `${process.pid}\n`);
  try {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      try {
        await link(candidate, lockPath);
        return async () => {
          await unlink(lockPath).catch(() => {});
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = Number.parseInt(await readFile(lockPath, 'utf8').catch(() => ''), 10);
      if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
        throw new EmbeddedDatabaseError(
          'FUSEBOX_DB_DATA_DIR_LOCKED',
          dataDir,
          `the data directory ${dataDir} is in use by another Fusebox process (pid ${holder}); an embedded ` +
            'database serves one process. Stop that process, choose another FUSEBOX_DATA_DIR, or set DATABASE_URL ' +
            'to share a Postgres between processes.',
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
    await unlink(candidate).catch(() => {});
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
