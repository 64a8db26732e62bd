import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { FastifyBaseLogger } from 'fastify';

const DASHBOARD_DIR = fileURLToPath(new URL('../../dashboard', import.meta.url));
const STOP_GRACE_MS = 5_000;

export interface DashboardOptions {
  host: string;
  port: number;
  /** Where the dashboard's server reaches the API. */
  apiUrl: string;
  apiToken?: string;
  log: FastifyBaseLogger;
}

export interface DashboardProcess {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts the built Next.js dashboard as a child process that proxies /trpc to the API. Returns null, with a
 * warning, when the dashboard has not been built.
 */
export function startDashboard(options: DashboardOptions): DashboardProcess | null {
  if (!existsSync(join(DASHBOARD_DIR, '.next', 'BUILD_ID'))) {
    options.log.warn('the dashboard is not built, so only the API runs; `npm start` builds it');
    return null;
  }
  const nextBin = createRequire(join(DASHBOARD_DIR, 'package.json')).resolve('next/dist/bin/next');
  const child = spawn(process.execPath, [nextBin, 'start', '-p', String(options.port), '-H', options.host], {
    cwd: DASHBOARD_DIR,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      NEXT_TELEMETRY_DISABLED: '1',
      FUSEBOX_API_URL: options.apiUrl,
      ...(options.apiToken ? { FUSEBOX_API_TOKEN: options.apiToken } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = options.log.child({ component: 'dashboard' });
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      if (line.trim()) log.info(line.trim());
    });
  }
  let stopping = false;
  child.on('exit', (code, signal) => {
    if (!stopping) log.error({ code, signal }, 'the dashboard exited unexpectedly; the API keeps running');
  });
  const url = `http://${options.host}:${options.port}`;
  return {
    url,
    stop: () => {
      stopping = true;
      return stopChild(child);
    },
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
