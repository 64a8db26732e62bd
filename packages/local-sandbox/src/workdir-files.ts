import { constants } from 'node:fs';
import { type FileHandle, chown, lchown, lstat, mkdir, open, symlink, writeFile } from 'node:fs/promises';
import { isAbsolute, join, posix } from 'node:path';
import { UnsafePathError } from './errors/unsafe-path-error';
import type { SandboxWorkdir } from './sandbox';

/**
 * Directories a request's file may be below. Each directory is made by a system call that walks its whole path,
 * so a thousand files 200 directories deep cost 200,000 of them and held an executor slot for over a minute.
 */
export const MAX_FILE_DIRECTORY_DEPTH = 32;
/** Directories a request's files may need in all (1,000 distinct 32-deep chains took 12 s to make). */
export const MAX_FILE_DIRECTORIES = 2000;
/** Linux's limits on a path and on one of its names, in bytes: longer ones fail with ENAMETOOLONG. */
const PATH_MAX = 4096;
const NAME_MAX = 255;

/**
 * A request path as a normalised path inside the working directory, or the reason it is not one: absolute
 * paths, `..` that climbs out, empty names and paths deeper than {@link MAX_FILE_DIRECTORY_DEPTH} are refused,
 * never resolved against the host.
 */
function relativePath(path: string): string | { refused: string } {
  if (path === '' || path.includes('\0')) return { refused: 'empty or holds a NUL byte' };
  if (isAbsolute(path)) return { refused: 'absolute paths are not allowed' };
  const normalised = posix.normalize(path);
  if (normalised === '..' || normalised.startsWith('../'))
    return { refused: 'it leads out of the working directory' };
  if (normalised === '.' || normalised.endsWith('/')) return { refused: 'it names a directory, not a file' };
  const names = normalised.split('/');
  if (names.length - 1 > MAX_FILE_DIRECTORY_DEPTH)
    return { refused: `it is more than ${MAX_FILE_DIRECTORY_DEPTH} directories deep` };
  if (names.some((name) => Buffer.byteLength(name) > NAME_MAX))
    return { refused: `one of its names is longer than ${NAME_MAX} bytes` };
  return normalised;
}

/**
 * Writes the request's `files` (base64, nulls skipped) into a working directory nobody has touched yet, creating
 * parent directories, all owned by the sandbox's uid so its code may change them. Throws {@link UnsafePathError}
 * before writing anything if a path is unsafe or too long, if the files need more than
 * {@link MAX_FILE_DIRECTORIES} directories, if one file's path is another's directory, or if two name one file. Asynchronous, one file after another: a thousand
 * files written synchronously held the API's event loop for 40-50 ms.
 */
export async function writeFiles(
  workdir: SandboxWorkdir,
  files: Record<string, string | null>,
): Promise<void> {
  const writes: [path: string, relative: string, content: Buffer][] = [];
  const directories = new Set<string>();
  const written = new Set<string>();
  for (const [path, content] of Object.entries(files)) {
    if (content === null) continue;
    const relative = relativePath(path);
    if (typeof relative !== 'string') throw new UnsafePathError(path, relative.refused);
    // Measured where it is written: the host's path to the working directory comes first.
    if (Buffer.byteLength(join(workdir.host, relative)) >= PATH_MAX)
      throw new UnsafePathError(path, `in the working directory it is ${PATH_MAX} bytes or longer`);
    if (written.has(relative)) throw new UnsafePathError(path, 'another of the files names the same file');
    written.add(relative);
    for (let slash = relative.indexOf('/'); slash !== -1; slash = relative.indexOf('/', slash + 1))
      directories.add(relative.slice(0, slash));
    if (directories.size > MAX_FILE_DIRECTORIES)
      throw new UnsafePathError(path, `the files need more than ${MAX_FILE_DIRECTORIES} directories`);
    writes.push([path, relative, Buffer.from(content, 'base64')]);
  }
  for (const [path, relative] of writes) {
    if (directories.has(relative))
      throw new UnsafePathError(
        path,
        'another of the files is inside it: a path cannot be a file and a directory',
      );
  }
  const made = new Set<string>();
  for (const [, relative, content] of writes) await writeWorkdirFile(workdir, relative, content, made);
}

/**
 * Writes one file at a safe relative path of the working directory (see {@link writeFiles}). `made` holds the
 * directories already made for earlier files, so that files sharing a directory make it once.
 */
export async function writeWorkdirFile(
  workdir: SandboxWorkdir,
  relative: string,
  content: string | Buffer,
  made = new Set<string>(),
): Promise<void> {
  const parts = relative.split('/');
  let dir = workdir.host;
  for (const part of parts.slice(0, -1)) {
    dir = join(dir, part);
    if (made.has(dir)) continue;
    made.add(dir);
    if ((await mkdir(dir, { recursive: true })) !== undefined) await giveTo(workdir, dir);
  }
  const target = join(workdir.host, relative);
  await writeFile(target, content);
  await giveTo(workdir, target);
}

/**
 * Puts a symlink named `name` in the working directory, pointing at `target` as the sandbox sees it (SandboxFusion
 * links its runtime's node_modules so); a file the request wrote there already wins.
 */
export async function linkWorkdirEntry(workdir: SandboxWorkdir, name: string, target: string): Promise<void> {
  const path = join(workdir.host, name);
  try {
    await symlink(target, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw error;
  }
  if (workdir.owner !== undefined) await lchown(path, workdir.owner, workdir.owner);
}

async function giveTo(workdir: SandboxWorkdir, path: string): Promise<void> {
  if (workdir.owner !== undefined) await chown(path, workdir.owner, workdir.owner);
}

/**
 * Where each `fetch_files` path is, relative to the sandbox's /tmp: its only writable place (the working
 * directory is in it), so nothing worth fetching is elsewhere. Absolute paths are taken as the sandbox sees them
 * (`/tmp/b`, as SandboxFusion accepts), relative ones from the working directory. Throws
 * {@link UnsafePathError} naming the first path outside, before anything runs.
 */
export function resolveFetchPaths(workdir: SandboxWorkdir, paths: readonly string[]): Map<string, string> {
  // With isolation off, the sandbox's TMPDIR is its working directory; with bubblewrap, the /tmp holding it.
  const tmp = workdir.tmp === workdir.host ? workdir.inside : posix.dirname(workdir.inside);
  const resolved = new Map<string, string>();
  for (const path of paths) {
    if (path === '' || path.includes('\0')) throw new UnsafePathError(path, 'empty or holds a NUL byte');
    const absolute = posix.resolve(workdir.inside, path);
    if (!absolute.startsWith(`${tmp}/`)) {
      throw new UnsafePathError(
        path,
        `it is outside the sandbox's writable places: only files under ${tmp} (which holds the working directory ${workdir.inside}) can be fetched`,
      );
    }
    resolved.set(path, absolute.slice(tmp.length + 1));
  }
  return resolved;
}

/**
 * Reads `fetch_files` back as base64, keyed by the request's paths, once the sandbox is killed (its processes may
 * not all be dead yet: what is opened must still be the path checked). `paths` are {@link resolveFetchPaths}'s.
 * A file that is missing, not a regular file, or passes through a symlink anywhere is left out (SandboxFusion
 * leaves out missing files); symlinks are never followed. Files stop being added once `limitBytes` would be
 * exceeded.
 */
export async function fetchFiles(
  workdir: SandboxWorkdir,
  paths: ReadonlyMap<string, string>,
  limitBytes: number,
): Promise<Record<string, string>> {
  let tmp: FileHandle;
  try {
    // Opened as given: `tmp` may be `/proc/self/fd/N/..`, which path.join would collapse.
    tmp = await open(workdir.tmp, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch {
    return {}; // The code removed its own working directory: nothing of it is left to fetch.
  }
  try {
    const fetched: Record<string, string> = {};
    let budget = limitBytes;
    for (const [path, relative] of paths) {
      const content = await readRegularFile(`/proc/self/fd/${tmp.fd}`, relative, budget);
      if (content === undefined) continue;
      budget -= content.length;
      fetched[path] = content.toString('base64');
    }
    return fetched;
  } finally {
    await tmp.close();
  }
}

/**
 * Opens `parts` below `workdir` one component at a time, each looked up in the directory opened before it (through
 * its `/proc/self/fd` link, as openat would) and never through a symlink: a directory the check above saw may be
 * a symlink by now, swapped by a process of the sandbox not dead yet (its kill is a message to the spawner).
 */
async function openBeneath(workdir: string, parts: string[]): Promise<FileHandle | undefined> {
  let opened: FileHandle | undefined;
  try {
    opened = await open(workdir, constants.O_RDONLY | constants.O_DIRECTORY);
    for (const [index, part] of parts.entries()) {
      const last = index === parts.length - 1;
      const flags =
        constants.O_RDONLY | constants.O_NOFOLLOW | (last ? constants.O_NONBLOCK : constants.O_DIRECTORY);
      const dir: FileHandle = opened;
      opened = undefined;
      try {
        opened = await open(`/proc/self/fd/${dir.fd}/${part}`, flags);
      } finally {
        await dir.close();
      }
    }
    return opened;
  } catch {
    await opened?.close().catch(() => undefined);
    return undefined;
  }
}

async function readRegularFile(
  workdir: string,
  relative: string,
  budget: number,
): Promise<Buffer | undefined> {
  const parts = relative.split('/');
  let current = workdir;
  for (const [index, part] of parts.entries()) {
    current = join(current, part);
    let stat;
    try {
      stat = await lstat(current);
    } catch {
      return undefined;
    }
    const last = index === parts.length - 1;
    if (stat.isSymbolicLink() || (last ? !stat.isFile() : !stat.isDirectory())) return undefined;
    if (last && stat.size > budget) return undefined;
  }
  const file = await openBeneath(workdir, parts);
  if (file === undefined) return undefined;
  try {
    const stat = await file.stat();
    const size = stat.size;
    if (!stat.isFile() || size > budget) return undefined;
    const content = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const { bytesRead } = await file.read(content, read, size - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return content.subarray(0, read);
  } finally {
    await file.close();
  }
}
