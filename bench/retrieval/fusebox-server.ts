import { type ChildProcess, spawn } from 'node:child_process';
import { retrieve } from './retrieve-client';

/**
 * Starts `fusebox serve` from `bin` (a checkout's apps/api/bin/fusebox.js) on `port` with `env` added, and
 * resolves once it answers /v1/ping. Its index is built on its first search: see {@link firstSearch}.
 */
export async function startServer(
  bin: string,
  port: number,
  env: Record<string, string>,
): Promise<ChildProcess> {
  const server = spawn(process.execPath, [bin, 'serve', '--no-dashboard'], {
    env: { ...process.env, ...env, PORT: String(port), FUSEBOX_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let attempt = 0; ; attempt++) {
    const up = await fetch(`http://127.0.0.1:${port}/v1/ping`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return server;
    if (server.exitCode !== null) throw new Error(`${bin}: the server exited`);
    if (attempt > 600) {
      server.kill('SIGTERM');
      throw new Error(`${bin}: the server did not start within 300 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * The server's first search, which waits for its index to be built; its wall-clock time in ms. A wait past
 * undici's 300 s for the answer's headers fails, and then it asks again.
 */
export async function firstSearch(port: number, query: string, topk: number): Promise<number> {
  const started = performance.now();
  for (let attempt = 0; ; attempt++) {
    const answered = await retrieve(port, [query], topk).then(
      () => true,
      async (error: unknown) => {
        if (attempt >= 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        return false;
      },
    );
    if (answered) return performance.now() - started;
  }
}
