import {
  chownSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  writeFileSync,
} from 'node:fs';
import { isAbsolute, join, posix } from 'node:path';
import { UnsafePathError } from './errors/unsafe-path-error';
import type { SandboxWorkdir } from './sandbox';

/**
 * A request path as a normalised path inside the working directory, or the reason it is not one: absolute
 * paths, `..` that climbs out, and empty names are refused, never resolved against the host.
 */
function relativePath(path: string): string | { refused: string } {
  if (path === '' || path.includes('\0')) return { refused: 'empty or holds a NUL byte' };
  if (isAbsolute(path)) return { refused: 'absolute paths are not allowed' };
  const normalised = posix.normalize(path);
  if (normalised === '..' || normalised.startsWith('../'))
    return { refused: 'it leads out of the working directory' };
  if (normalised === '.' || normalised.endsWith('/')) return { refused: 'it names a directory, not a file' };
  return normalised;
}

/**
 * Writes the request's `files` (base64, nulls skipped) into a working directory nobody has touched yet, creating
 * parent directories, all owned by the sandbox's uid so its code may change them. Throws {@link UnsafePathError}
 * before writing anything if a path is unsafe.
 */
export function writeFiles(workdir: SandboxWorkdir, files: Record<string, string | null>): void {
  const writes: [string, Buffer][] = [];
  for (const [path, content] of Object.entries(files)) {
    if (content === null) continue;
    const relative = relativePath(path);
    if (typeof relative !== 'string') throw new UnsafePathError(path, relative.refused);
    writes.push([relative, Buffer.from(content, 'base64')]);
  }
  for (const [relative, content] of writes) writeWorkdirFile(workdir, relative, content);
}

/** Writes one file at a safe relative path of the working directory (see {@link writeFiles}). */
export function writeWorkdirFile(workdir: SandboxWorkdir, relative: string, content: string | Buffer): void {
  const parts = relative.split('/');
  for (let depth = 1; depth < parts.length; depth += 1) {
    const dir = join(workdir.host, ...parts.slice(0, depth));
    if (mkdirSync(dir, { recursive: true }) !== undefined) giveTo(workdir, dir);
  }
  const target = join(workdir.host, relative);
  writeFileSync(target, content);
  giveTo(workdir, target);
}

function giveTo(workdir: SandboxWorkdir, path: string): void {
  if (workdir.owner !== undefined) chownSync(path, workdir.owner, workdir.owner);
}

/**
 * Reads `fetch_files` back as base64 after every sandboxed process is dead. A path that is unsafe, missing,
 * not a regular file, or passes through a symlink anywhere is left out (SandboxFusion leaves out missing
 * files); symlinks are never followed. Files stop being added once `limitBytes` would be exceeded.
 */
export function fetchFiles(
  workdir: string,
  paths: readonly string[],
  limitBytes: number,
): Record<string, string> {
  const fetched: Record<string, string> = {};
  let budget = limitBytes;
  for (const path of paths) {
    const relative = relativePath(path);
    if (typeof relative !== 'string' || Object.hasOwn(fetched, path)) continue;
    const content = readRegularFile(workdir, relative, budget);
    if (content === undefined) continue;
    budget -= content.length;
    fetched[path] = content.toString('base64');
  }
  return fetched;
}

function readRegularFile(workdir: string, relative: string, budget: number): Buffer | undefined {
  const parts = relative.split('/');
  let current = workdir;
  for (const [index, part] of parts.entries()) {
    current = join(current, part);
    let stat;
    try {
      stat = lstatSync(current);
    } catch {
      return undefined;
    }
    const last = index === parts.length - 1;
    if (stat.isSymbolicLink() || (last ? !stat.isFile() : !stat.isDirectory())) return undefined;
    if (last && stat.size > budget) return undefined;
  }
  let fd: number;
  try {
    fd = openSync(current, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    const size = stat.size;
    if (!stat.isFile() || size > budget) return undefined;
    const content = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, content, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    return content.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}
