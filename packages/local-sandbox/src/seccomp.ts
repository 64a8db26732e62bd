import { execFile } from 'node:child_process';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import {
  defaultSeccompCacheDir,
  readCachedFilter,
  removeCachedFilter,
  seccompFilterKey,
  storeCachedFilter,
} from './seccomp-cache';

/** The filter's generator; it runs with `python3 -c`, from the host's Debian Python and its python3-seccomp. */
const GENERATOR_SOURCE = readFileSync(new URL('./seccomp-filter.py', import.meta.url), 'utf8');

export interface SeccompFilterOptions {
  /**
   * Where the compiled filter is kept between starts (see seccomp-cache.ts), or null to compile it every time.
   * Compiling costs a Python start and libseccomp (50 ms idle, 350 ms on a loaded machine) on the way to the
   * first answer after a restart.
   */
  cacheDir?: string | null;
}

/**
 * A filter written for sandboxes. `checked` resolves once it is known to be what the generator compiles here: at
 * once for a freshly compiled one. One taken from the cache is compiled again in the background and compared,
 * because the cache can be written by whatever runs as this user, which includes code a server with isolation
 * `none` runs: on a mismatch the fresh filter replaces both the cached one and the one written (by rename, so a
 * sandbox gets one whole filter or the other), and `checked` resolves with a message saying so. It rejects when
 * the fresh compile fails (the cached filter is then removed, so the next start compiles and says why).
 */
export interface WrittenSeccompFilter {
  checked: Promise<string | undefined>;
}

/**
 * Writes the seccomp filter every sandbox runs under (see seccomp-filter.py) to `path`, as BPF for bubblewrap's
 * `--seccomp`: the one compiled by an earlier start for the same generator and packages, if it can be trusted
 * (and then checked against a fresh compile: see {@link WrittenSeccompFilter}), or a freshly compiled one.
 * Rejects naming the missing package when libseccomp's Python binding is not installed.
 */
export async function writeSeccompFilter(
  path: string,
  { cacheDir = defaultSeccompCacheDir() }: SeccompFilterOptions = {},
): Promise<WrittenSeccompFilter> {
  const key = cacheDir === null ? undefined : seccompFilterKey(GENERATOR_SOURCE);
  const cached = cacheDir !== null && key !== undefined ? readCachedFilter(cacheDir, key) : undefined;
  if (cacheDir !== null && key !== undefined && cached !== undefined) {
    // The mode Python's open() gives the compiled one, so both are read the same way.
    writeFileSync(path, cached, { mode: 0o644, flag: 'wx' });
    return { checked: checkCachedFilter(path, cached, cacheDir, key) };
  }
  await compileSeccompFilter(path);
  if (cacheDir !== null && key !== undefined) storeCachedFilter(cacheDir, key, readFileSync(path));
  return { checked: Promise.resolve(undefined) };
}

/** Compiles the filter afresh beside `path` and, if it differs from `cached`, puts it in place of both. */
async function checkCachedFilter(
  path: string,
  cached: Buffer,
  cacheDir: string,
  key: string,
): Promise<string | undefined> {
  const fresh = `${path}.fresh`;
  try {
    await compileSeccompFilter(fresh);
  } catch (error) {
    rmSync(fresh, { force: true });
    removeCachedFilter(cacheDir, key);
    throw error;
  }
  const compiled = readFileSync(fresh);
  if (compiled.equals(cached)) {
    rmSync(fresh, { force: true });
    return undefined;
  }
  storeCachedFilter(cacheDir, key, compiled);
  renameSync(fresh, path);
  return (
    `the cached seccomp filter in ${cacheDir} was not the one this host compiles (${cached.length} bytes, ` +
    `compiled: ${compiled.length}): something that runs as this user wrote it (a server with isolation none ` +
    'runs submitted code so). It is replaced, and no sandbox ran code under it'
  );
}

function compileSeccompFilter(path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      '/usr/bin/python3',
      ['-I', '-c', GENERATOR_SOURCE, path],
      { env: Object.create(null) as NodeJS.ProcessEnv, timeout: 30_000 },
      (error, _stdout, stderr) => {
        if (!error) return resolve();
        const missing = stderr.includes("No module named 'seccomp'");
        reject(
          new Error(
            missing
              ? 'the seccomp filter needs libseccomp for Python (apt-get install -y python3-seccomp)'
              : `the seccomp filter could not be built: ${stderr.trim() || error.message}`,
          ),
        );
      },
    );
  });
}
