import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The filter's generator; it runs with `python3 -c`, from the host's Debian Python and its python3-seccomp. */
const GENERATOR_SOURCE = readFileSync(new URL('./seccomp-filter.py', import.meta.url), 'utf8');

/**
 * Writes the seccomp filter every sandbox runs under (see seccomp-filter.py) to `path`, as BPF for bubblewrap's
 * `--seccomp`. Rejects naming the missing package when libseccomp's Python binding is not installed.
 */
export function writeSeccompFilter(path: string): Promise<void> {
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
