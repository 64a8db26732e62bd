import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { type RunningServer, startServer } from '../serve-process';

const DELEGATE_CGROUPS = fileURLToPath(
  new URL('../../../../packages/local-sandbox/bin/delegate-cgroups.sh', import.meta.url),
);

/** An unprivileged user a root test starts the server as, with a cgroup subtree delegated to it first. */
export interface ServerUser {
  uid: number;
  gid: number;
}

/** How often the watcher pings the server while a probe runs. */
const PING_EVERY_MS = 25;
/** What "healthy" means: `/v1/ping` answers within this. */
export const PING_BUDGET_MS = 100;

/** An answer of the API: status and raw text (hostile answers are not always JSON). */
export interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/** What the ping watcher saw while a probe ran. */
export interface Health {
  pings: number;
  failures: number;
  /** The longest run of consecutive pings slower than the budget. */
  longestSlowStreak: number;
  slowestMs: number;
}

/** A real `fusebox serve` on a test database, with helpers to probe it. */
export interface HostileServer {
  server: RunningServer;
  url: string;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Answer>;
  get(path: string): Promise<Answer>;
  /** `/run_code` with a short timeout; the JSON answer. */
  runCode(language: string, code: string, extra?: Record<string, unknown>): Promise<RunAnswer>;
  /**
   * Runs a probe while pinging the server every 25 ms, and returns the probe's result with what the pings saw.
   * Use `expectHealthy` on the health.
   */
  watch<T>(probe: () => Promise<T>): Promise<{ result: T; health: Health }>;
  stop(): Promise<void>;
}

export interface RunAnswer {
  status: string;
  message: string;
  run_result: {
    status: string;
    stdout: string;
    stderr: string;
    return_code: number | null;
    execution_time: number;
  };
  files: Record<string, string>;
}

/**
 * `FUSEBOX_HOSTILE_SERVER_UID=<uid>` (a root test run) starts every hostile server as that uid, so that the whole
 * suite proves its probes against an unprivileged Fusebox (README: "Running as an unprivileged user").
 */
function userFromEnvironment(): ServerUser | undefined {
  const uid = process.env.FUSEBOX_HOSTILE_SERVER_UID;
  if (uid === undefined || uid === '') return undefined;
  if (!/^[1-9]\d*$/.test(uid))
    throw new Error(`FUSEBOX_HOSTILE_SERVER_UID must be a uid other than 0: ${uid}`);
  return { uid: Number(uid), gid: Number(uid) };
}

export async function startHostileServer(
  env: Record<string, string> = {},
  asUser?: ServerUser,
): Promise<HostileServer> {
  const user = asUser ?? userFromEnvironment();
  if (user !== undefined) execFileSync(DELEGATE_CGROUPS, [String(user.uid)], { stdio: 'pipe' });
  const database: TestDatabase = await createTestDatabase();
  // Embedded, the server opens its data directory itself: the user it runs as must own it.
  const dataDir = database.env.FUSEBOX_DATA_DIR;
  if (user !== undefined && dataDir) execFileSync('chown', ['-R', `${user.uid}:${user.gid}`, dataDir]);
  const server = await startServer(
    {
      ...database.env,
      FUSEBOX_EXECUTOR_CONCURRENCY: '4',
      FUSEBOX_EXECUTOR_MEMORY_CAP_MB: '256',
      FUSEBOX_EXECUTOR_DISK_LIMIT_MB: '64',
      FUSEBOX_EXECUTOR_MAX_PROCESSES: '64',
      ...env,
    },
    undefined,
    undefined,
    user ?? {},
  );
  const request = async (path: string, init: RequestInit): Promise<Answer> => {
    const response = await fetch(`${server.url}${path}`, init);
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      text: await response.text(),
    };
  };
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  return {
    server,
    url: server.url,
    post,
    get: (path) => request(path, { method: 'GET' }),
    async runCode(language, code, extra = {}) {
      const answer = await post('/run_code', { code, language, run_timeout: 10, ...extra });
      if (answer.status !== 200) throw new Error(`/run_code answered ${answer.status}: ${answer.text}`);
      return JSON.parse(answer.text) as RunAnswer;
    },
    async watch(probe) {
      let done = false;
      const health: Health = { pings: 0, failures: 0, longestSlowStreak: 0, slowestMs: 0 };
      const pinging = (async () => {
        let streak = 0;
        while (!done) {
          const started = performance.now();
          try {
            const response = await fetch(`${server.url}/v1/ping`, { signal: AbortSignal.timeout(10_000) });
            await response.text();
            if (!response.ok) health.failures += 1;
          } catch {
            health.failures += 1;
          }
          const ms = performance.now() - started;
          health.pings += 1;
          health.slowestMs = Math.max(health.slowestMs, ms);
          streak = ms > PING_BUDGET_MS ? streak + 1 : 0;
          health.longestSlowStreak = Math.max(health.longestSlowStreak, streak);
          await new Promise((resolve) => setTimeout(resolve, PING_EVERY_MS));
        }
      })();
      try {
        const result = await probe();
        return { result, health };
      } finally {
        done = true;
        await pinging;
      }
    },
    async stop() {
      await server.stop();
      await database.drop();
    },
  };
}

/**
 * The server stayed healthy: every ping answered (within 10 s), and never three in a row took longer than the
 * budget. Pings go one after another, so a loop held once shows as one slow ping, and one held again and again
 * as a run of them (three in a row, in stop 26, when PGlite held it for each query). One or two slow pings are
 * the machine's noise: a full `npm test` on two cores saw two in a row at 164 ms while nothing held the loop.
 */
export function healthProblem(health: Health): string | undefined {
  if (health.pings === 0) return 'no ping was sent while the probe ran';
  if (health.failures > 0) return `${health.failures} of ${health.pings} pings failed`;
  if (health.longestSlowStreak > 2)
    return `${health.longestSlowStreak} pings in a row took over ${PING_BUDGET_MS} ms (slowest ${Math.round(health.slowestMs)} ms)`;
  return undefined;
}
