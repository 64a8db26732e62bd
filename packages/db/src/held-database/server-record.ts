import { readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { lockHolder } from '../data-dir-lock';

/** The file, in the data directory, that says which server holds it and how to reach it. */
const RECORD_FILE = 'server.json';

/** How a command reaches the `fusebox serve` that holds an embedded data directory. */
export interface ServerRecord {
  pid: number;
  /** Where its API listens. */
  url: string;
  /** The secret `/v1/local/*` asks for (LOCAL_TOKEN_HEADER). */
  token: string;
}

/**
 * Records, in the embedded data directory it holds, where this server listens and its secret (a fresh random
 * one per start). Only someone who can read the directory (its owner) learns the secret, and with it may ask the
 * server to import local files or read the database (`/v1/local/*`): what a command run while the server holds the
 * directory does through it. Returns a function that removes the record on shutdown.
 */
export async function writeServerRecord(
  dataDir: string,
  url: string,
  token: string,
): Promise<{ remove: () => Promise<void> }> {
  const path = join(dataDir, RECORD_FILE);
  const record: ServerRecord = { pid: process.pid, url, token };
  const temporary = `${path}.${process.pid}`;
  await writeFile(temporary, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  await rename(temporary, path);
  return {
    remove: async () => {
      const current = await readRecord(path);
      if (current?.token === record.token) await unlink(path).catch(() => {});
    },
  };
}

/**
 * The server that holds the embedded data directory now, as its record tells how to reach it; undefined when no
 * live process holds it, or when the holder is not a server (a command such as an import).
 */
export async function findHoldingServer(dataDir: string): Promise<ServerRecord | undefined> {
  const holder = await lockHolder(dataDir);
  if (holder === undefined) return undefined;
  const record = await readRecord(join(dataDir, RECORD_FILE));
  return record?.pid === holder ? record : undefined;
}

/** The record at `path`; undefined when it is missing, unreadable or not one (a half-written file never is). */
async function readRecord(path: string): Promise<ServerRecord | undefined> {
  try {
    const record = JSON.parse(await readFile(path, 'utf8')) as Partial<ServerRecord>;
    const valid =
      Number.isInteger(record.pid) && typeof record.url === 'string' && typeof record.token === 'string';
    return valid ? (record as ServerRecord) : undefined;
  } catch {
    return undefined;
  }
}
