import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { randomName } from './random-name';
import { trustedDirectory } from './trusted-directory';

/** What libseccomp and its Python binding are: Debian's package database names their versions. */
const PACKAGES_DB = '/var/lib/dpkg/status';
const PYTHON = '/usr/bin/python3';
const SUFFIX = '.bpf';
/** A classic BPF program is a sequence of 8-byte instructions, at most 4096 of them. */
const INSTRUCTION_BYTES = 8;
const MAX_FILTER_BYTES = 4096 * INSTRUCTION_BYTES;

/**
 * Where compiled filters are kept between starts: root's in a system directory, another user's in its own folder
 * of the temporary directory.
 */
export function defaultSeccompCacheDir(): string {
  const uid = process.getuid?.() ?? 0;
  return uid === 0 ? '/var/lib/fusebox/seccomp' : join(tmpdir(), `fusebox-${uid}-seccomp`);
}

/**
 * Where a libseccomp or a Python `seccomp` binding can come from without dpkg knowing: the dynamic linker's cache
 * (a library in /usr/local/lib) and the local Python module directories, which `python3 -I` searches before
 * Debian's. A pip install or an ldconfig there changes one of these, and with it the key.
 */
function placesOutsidePackages(): string[] {
  const local = '/usr/local/lib';
  let pythons: string[] = [];
  try {
    pythons = readdirSync(local).filter((name) => name.startsWith('python3'));
  } catch {
    // No /usr/local/lib: nothing can come from there.
  }
  return [
    '/etc/ld.so.cache',
    local,
    ...pythons.flatMap((name) => [join(local, name, 'dist-packages'), join(local, name, 'site-packages')]),
  ];
}

/** A place's identity and last change, or that it is absent. */
function placeState(path: string): string {
  try {
    const stat = statSync(path);
    return `${path}\0${stat.ino}\0${stat.size}\0${stat.mtimeMs}\0`;
  } catch {
    return `${path}\0absent\0`;
  }
}

/**
 * Names what the compiled filter depends on: the generator, the architecture, the Python binary, the installed
 * packages (libseccomp, python3-seccomp, Python) and the places a library or binding can come from outside them.
 * Undefined where no package database says what is installed: unsure whether the cached filter still matches,
 * the caller compiles a fresh one.
 */
export function seccompFilterKey(
  generatorSource: string,
  outsidePackages: readonly string[] = placesOutsidePackages(),
): string | undefined {
  try {
    const python = statSync(realpathSync(PYTHON));
    const hash = createHash('sha256')
      .update(generatorSource)
      .update(`\0${process.arch}\0${python.ino}\0${python.size}\0${python.mtimeMs}\0`)
      .update(readFileSync(PACKAGES_DB));
    for (const place of outsidePackages) hash.update(placeState(place));
    return hash.digest('hex');
  } catch {
    return undefined;
  }
}

/**
 * The filter compiled for `key` by an earlier start, or undefined. The filter decides what sandboxed code may
 * call, so a cached one is used only if nobody but this user can have written it: the directory and every one
 * above it may be changed only by this user or root (or are sticky, as /tmp), and the file itself is a regular
 * file (never a link) of this user, with one name, that nobody else may write, of a plausible size.
 */
export function readCachedFilter(dir: string, key: string): Buffer | undefined {
  try {
    if (!trustedDirectory(dir)) return undefined;
    const fd = openSync(
      join(dir, key + SUFFIX),
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
    try {
      const stat = fstatSync(fd);
      const plausible =
        stat.isFile() &&
        stat.uid === process.getuid?.() &&
        (stat.mode & 0o022) === 0 &&
        stat.nlink === 1 &&
        stat.size > 0 &&
        stat.size <= MAX_FILTER_BYTES &&
        stat.size % INSTRUCTION_BYTES === 0;
      return plausible ? readFileSync(fd) : undefined;
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** Forgets the filter kept under `key` (one that cannot be checked is not to be used again). */
export function removeCachedFilter(dir: string, key: string): void {
  try {
    if (trustedDirectory(dir)) rmSync(join(dir, key + SUFFIX), { force: true });
  } catch {
    // Nothing to remove.
  }
}

/**
 * Keeps `filter` for the next start, under `key`, replacing the filters of other keys (an earlier generator or
 * libseccomp). Written aside and renamed into place, so a concurrent start reads a whole file or none. Nothing is
 * written into a directory {@link readCachedFilter} would not trust; a cache that cannot be written costs the
 * next start the compile, nothing else.
 */
export function storeCachedFilter(dir: string, key: string, filter: Buffer): void {
  try {
    // Only the cache itself is private: /var/lib/fusebox also holds the toolchain snapshots sandboxes pass through.
    mkdirSync(dirname(dir), { recursive: true, mode: 0o755 });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!trustedDirectory(dir)) return;
    const building = join(dir, randomName('.building-'));
    writeFileSync(building, filter, { mode: 0o600, flag: 'wx' });
    renameSync(building, join(dir, key + SUFFIX));
    for (const name of readdirSync(dir)) {
      if (name.endsWith(SUFFIX) && name !== key + SUFFIX) rmSync(join(dir, name), { force: true });
    }
  } catch {
    // Not cached: the next start compiles the filter again.
  }
}
