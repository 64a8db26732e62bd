import { randomBytes } from 'node:crypto';
import { type DatabaseMode, describeTarget } from '@fusebox/db/database';
import { IsolationUnavailableError } from '@fusebox/local-sandbox/errors';
import { startDashboard } from '../dashboard-process';
import { databaseTarget, openDatabase } from '../database';
import { type Env, readEnv } from '../env';
import { openExecutionGate } from '../execution-gate';
import { openRetrieveLimiter } from '../retrieve-limiter';
import { writeServerRecord } from '@fusebox/db/server-record';
import { createLogger } from '../logger';
import { createServerExecutor } from '../sandbox-executor';
import { loadBuiltinTasks } from '@fusebox/tasks';
import { buildServer } from '../server';
import { createUpstreamRunner } from '../upstream-sandbox';
import type { Services } from '../services';
import { VERSION } from '../version';
import type { Command } from './command';

/** If a graceful stop hangs (a stuck client, a wedged child), exit anyway after this long. */
const SHUTDOWN_DEADLINE_MS = 10_000;

export const serveCommand: Command = {
  path: ['serve'],
  summary: 'run the API and the dashboard (what `npm start` runs)',
  help: [
    '--no-dashboard   run the API only',
    'Reads HOST, PORT, DASHBOARD_PORT, DATABASE_URL and the FUSEBOX_* variables (see the README).',
  ],
  options: { 'no-dashboard': { type: 'boolean', default: false } },
  async run(values) {
    const env = readEnv();
    const startedAt = new Date();
    const log = createLogger(env);
    // Signals are caught from the start: one that comes while the database opens (seconds, embedded) or just as the
    // server starts listening stops it cleanly once start-up is done, instead of killing it half-way.
    const signals = signalLatch();
    const { mode, location } = describeTarget(databaseTarget(env));
    // First, before the database opens (PGlite takes seconds to start): which mode, where the data lives.
    log.info(modeLine(mode, location));
    // The executor's set-up (toolchains, the seccomp filter, the sandbox that proves isolation works) needs nothing
    // of the database: it runs while the database opens, instead of after it, on the way to the first answer.
    const executorStarting = settled(createServerExecutor(env));
    const stores = await settled(
      openStores(env, {
        info: (line) => log.info(line),
        warn: (line) => log.warn(line),
      }),
    );
    const started = await executorStarting;
    if ('error' in stores || 'error' in started) {
      if ('value' in stores) await stores.value.close();
      if ('value' in started) await started.value.close();
      // A database that cannot open is the first thing to fix: it is reported before the executor's failure.
      const { error } = 'error' in stores ? stores : (started as { error: unknown });
      if (!(error instanceof IsolationUnavailableError)) throw error;
      console.error(`fusebox: ${error.message}`);
      return 1;
    }
    const { database, builtinTasks, gate, searchLimiter } = stores.value;
    const { prisma } = database;
    const executor = started.value;
    const upstream = env.SANDBOX_FUSION_URL ? createUpstreamRunner(env.SANDBOX_FUSION_URL) : undefined;
    // Embedded, this process alone can open the database: other processes on the machine go through it.
    const token = database.readOnlyQuery ? randomBytes(32).toString('hex') : undefined;
    const services: Services = {
      env,
      prisma,
      startedAt,
      executor,
      ...(upstream ? { upstream } : {}),
      gate,
      searchLimiter,
      ...(token && database.readOnlyQuery
        ? { local: { token, sql: database.sql, readOnlyQuery: database.readOnlyQuery } }
        : {}),
    };
    const app = await buildServer(services, { logger: log });
    app.log.info(
      `global limit ${env.FUSEBOX_MAX_CONCURRENCY} concurrent executions ` +
        `(limiter key ${gate.key}, ${mode === 'postgres' ? 'shared by every API process on this database' : 'this process'}); ` +
        `executor: ${executor.options.concurrency} at once, isolation ${executor.options.isolation}`,
    );
    if (upstream) {
      app.log.info(
        `/run_code and /run_jupyter run on the upstream SandboxFusion at ${upstream.endpoint} (SANDBOX_FUSION_URL); ` +
          'sessions and agent actions run on this machine',
      );
    }
    app.log.info(
      `agent sessions: ${builtinTasks} builtin tasks; at most ${env.FUSEBOX_AGENT_SESSION_MAX} active, ` +
        `idle timeout ${env.FUSEBOX_AGENT_SESSION_IDLE_TIMEOUT_S} s`,
    );
    const address = await app.listen({ host: env.HOST, port: env.PORT });
    // Commands run while this server holds the embedded data directory find it here and import through it.
    const record = token ? await writeServerRecord(location, address, token) : undefined;
    app.log.info(`API listening on ${address}`);

    const dashboard = values['no-dashboard']
      ? null
      : startDashboard({
          host: env.HOST,
          port: env.DASHBOARD_PORT,
          apiUrl: address,
          ...(env.FUSEBOX_API_TOKEN ? { apiToken: env.FUSEBOX_API_TOKEN } : {}),
          log: app.log,
        });
    if (dashboard) app.log.info(`dashboard on ${dashboard.url}`);

    return new Promise<number>((resolve) => {
      signals.onFirst((signal) => {
        app.log.info(`${signal} received, stopping`);
        setTimeout(() => {
          app.log.error(`could not stop within ${SHUTDOWN_DEADLINE_MS} ms, exiting anyway`);
          resolve(1);
        }, SHUTDOWN_DEADLINE_MS).unref();
        void Promise.allSettled([app.close(), dashboard?.stop()])
          .then(() => Promise.allSettled([executor.close(), upstream?.close()]))
          .then(() => Promise.all([gate.close(), searchLimiter.close()]))
          .then(() => record?.remove())
          .then(() => database.close())
          .then(
            () => resolve(0),
            () => resolve(1),
          );
      });
    });
  },
};

/** A promise's outcome, as a value: one that fails while another step is awaited is not an unhandled rejection. */
function settled<T>(promise: Promise<T>): Promise<{ value: T } | { error: unknown }> {
  return promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
}

/**
 * The database (with the builtin tasks loaded), the execution gate and the search limiter; all or none open. The
 * limiters start once the database is migrated (they would otherwise create their table ahead of the migration),
 * then together with the tasks' loading, which needs neither of them.
 */
async function openStores(env: Env, log: { info(line: string): void; warn(line: string): void }) {
  const database = await openDatabase(env, log);
  const [builtinTasks, gate, searchLimiter] = await Promise.all([
    // Idempotent, so every start refreshes them: the builtin tasks make /start_instance work out of the box.
    settled(loadBuiltinTasks(database.prisma)),
    // Every execution runs under a permit of this gate: on Postgres, shared by every API process there.
    settled(openExecutionGate(env)),
    // Searches (/retrieve, search sessions) under a key of their own, shared the same way.
    settled(openRetrieveLimiter(env)),
  ]);
  if ('error' in builtinTasks || 'error' in gate || 'error' in searchLimiter) {
    await Promise.allSettled([
      'value' in gate ? gate.value.close() : undefined,
      'value' in searchLimiter ? searchLimiter.value.close() : undefined,
    ]);
    await database.close();
    throw [builtinTasks, gate, searchLimiter].flatMap((step) => ('error' in step ? [step.error] : []))[0];
  }
  return {
    database,
    builtinTasks: builtinTasks.value,
    gate: gate.value,
    searchLimiter: searchLimiter.value,
    close: async () => {
      await searchLimiter.value.close();
      await gate.value.close();
      await database.close();
    },
  };
}

/** Calls back, once, with the first SIGINT or SIGTERM: at once if one already came. */
function signalLatch(): { onFirst(callback: (signal: NodeJS.Signals) => void): void } {
  let received: NodeJS.Signals | undefined;
  let callback: ((signal: NodeJS.Signals) => void) | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (received) return;
    received = signal;
    callback?.(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    onFirst(next) {
      callback = next;
      if (received) next(received);
    },
  };
}

/** The first log line: the mode, where the data lives, and (embedded) how to grow out of one process. */
function modeLine(mode: DatabaseMode, location: string): string {
  return mode === 'embedded'
    ? `Fusebox ${VERSION}: embedded mode (PGlite, no database server), data in ${location}; one API process ` +
        'only. For several processes or nodes, set DATABASE_URL to a Postgres (move the data with ' +
        '`fusebox db export` and `fusebox db import`)'
    : `Fusebox ${VERSION}: Postgres mode, data in ${location}; API processes on this database share one global limit`;
}
