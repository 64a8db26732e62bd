import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import {
  defaultSeccompCacheDir,
  readCachedFilter,
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
 * Writes the seccomp filter every sandbox runs under (see seccomp-filter.py) to `path`, as BPF for bubblewrap's
 * `--seccomp`: the one compiled by an earlier start for the same generator and packages, if it can be trusted,
 * or a freshly compiled one. Rejects naming the missing package when libseccomp's Python binding is not installed.
 */
export async function writeSeccompFilter(
  path: string,
  { cacheDir = defaultSeccompCacheDir() }: SeccompFilterOptions = {},
): Promise<void> {
  const key = cacheDir === null ? undefined : seccompFilterKey(GENERATOR_SOURCE);
  const cached = cacheDir !== null && key !== undefined ? readCachedFilter(cacheDir, key) : undefined;
  if (cached !== undefined) {
    // The mode Python's open() gives the compiled one, so both are read the same way.
    writeFileSync(path, cached, { mode: 0o644, flag: 'wx' });
    return;
  }
  await compileSeccompFilter(path);
  if (cacheDir !== null && key !== undefined) storeCachedFilter(cacheDir, key, readFileSync(path));
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
