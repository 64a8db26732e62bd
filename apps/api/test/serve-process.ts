import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export const FUSEBOX_BIN = fileURLToPath(new URL('../bin/fusebox.js', import.meta.url));

/**
 * `npm start` on a machine with nothing else installed: no DATABASE_URL, and no Postgres either (the defaults a
 * Postgres client would fall back to point at a port where nothing listens). The data lives in .fusebox in the
 * working directory. A small global limit and executor, for a loaded test machine.
 */
export const NO_DATABASE_SERVER_ENV = {
  DATABASE_URL: '',
  FUSEBOX_DATA_DIR: '',
  PGHOST: '127.0.0.1',
  PGPORT: '9',
  FUSEBOX_MAX_CONCURRENCY: '3',
  FUSEBOX_EXECUTOR_CONCURRENCY: '2',
};

export interface RunningServer {
  /** The API's base URL, e.g. http://127.0.0.1:41234. */
  url: string;
  process: ChildProcess;
  /** Everything the process printed so far, stdout and stderr interleaved. */
  output(): string;
  /** Sends a signal and waits for the exit; resolves to the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Where the process runs: its working directory (the embedded database's default data dir is `.fusebox` in it),
 * and as whom (a root test may start it as an unprivileged uid and gid; supplementary groups are dropped).
 */
export interface ProcessOptions {
  cwd?: string;
  uid?: number;
  gid?: number;
  /** A command that runs node, as `unshare -fp --mount-proc` does (node is then pid 1 of a new namespace). */
  launcher?: string[];
}

/**
 * Starts a real `fusebox serve` process on a free port and waits until it listens. Logs are JSON so the
 * listening address can be read from them.
 */
export async function startServer(
  env: Record<string, string>,
  args: string[] = ['--no-dashboard'],
  timeoutMs = 90_000,
  options: ProcessOptions = {},
): Promise<RunningServer> {
  const { launcher = [], ...spawnOptions } = options;
  const [command, ...argv] = [...launcher, process.execPath, FUSEBOX_BIN, 'serve', ...args] as [
    string,
    ...string[],
  ];
  const child = spawn(command, argv, {
    ...spawnOptions,
    env: { ...process.env, PORT: '0', FUSEBOX_LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server did not listen within ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    const check = () => {
      const match = /API listening on (http:\/\/[^"\s]+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${output}`));
    });
  });

  return {
    url,
    process: child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = once(child, 'exit');
      child.kill(signal);
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}

/** Runs `fusebox …` to completion and returns its exit code and output. */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  options: ProcessOptions = {},
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  return runNode([FUSEBOX_BIN, ...args], env, options);
}

/** Runs `node …argv` to completion (a workspace's TypeScript entry, say) and returns its exit code and output. */
export async function runNode(
  argv: string[],
  env: Record<string, string> = {},
  options: ProcessOptions = {},
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, argv, {
    ...options,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr, ms: Date.now() - started };
}
