import { redactDatabaseUrl } from '@fusebox/db/database-url';
import { IsolationUnavailableError } from '@fusebox/local-sandbox/errors';
import type { Executor } from '@fusebox/local-sandbox/executor';
import { startDashboard } from '../dashboard-process';
import { openDatabase } from '../database';
import { readEnv } from '../env';
import { openExecutionGate } from '../execution-gate';
import { createServerExecutor } from '../sandbox-executor';
import { loadBuiltinTasks } from '../tasks/builtin-tasks';
import { buildServer } from '../server';
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
    // The logger needs a server; until the server exists, start-up lines go through a temporary one.
    const prisma = await openDatabase(env.DATABASE_URL, {
      info: (line) => console.log(line),
      warn: (line) => console.warn(`warning: ${line}`),
    });
    // Idempotent, so every start refreshes them: the builtin tasks make /start_instance work out of the box.
    const builtinTasks = await loadBuiltinTasks(prisma);
    // Every execution, in every API process on this database, runs under a permit of this gate.
    const gate = await openExecutionGate(env).catch(async (error: unknown) => {
      await prisma.$disconnect();
      throw error;
    });
    let executor: Executor;
    try {
      executor = await createServerExecutor(env);
    } catch (error) {
      await gate.close();
      await prisma.$disconnect();
      if (!(error instanceof IsolationUnavailableError)) throw error;
      console.error(`fusebox: ${error.message}`);
      return 1;
    }
    const services: Services = { env, prisma, startedAt, executor, gate };
    const app = await buildServer(services);
    app.log.info(
      `Fusebox ${VERSION}: Postgres mode, data in ${redactDatabaseUrl(env.DATABASE_URL)}; ` +
        `global limit ${env.FUSEBOX_MAX_CONCURRENCY} concurrent executions (limiter key ${gate.key}); ` +
        `executor: ${executor.options.concurrency} at once, isolation ${executor.options.isolation}`,
    );
    app.log.info(
      `agent sessions: ${builtinTasks} builtin tasks; at most ${env.FUSEBOX_AGENT_SESSION_MAX} active, ` +
        `idle timeout ${env.FUSEBOX_AGENT_SESSION_IDLE_TIMEOUT_S} s`,
    );
    const address = await app.listen({ host: env.HOST, port: env.PORT });
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
      let stopping = false;
      const stop = (signal: NodeJS.Signals) => {
        if (stopping) return;
        stopping = true;
        app.log.info(`${signal} received, stopping`);
        setTimeout(() => {
          app.log.error(`could not stop within ${SHUTDOWN_DEADLINE_MS} ms, exiting anyway`);
          resolve(1);
        }, SHUTDOWN_DEADLINE_MS).unref();
        void Promise.allSettled([app.close(), dashboard?.stop()])
          .then(() => executor.close())
          .then(() => gate.close())
          .then(() => prisma.$disconnect())
          .then(
            () => resolve(0),
            () => resolve(1),
          );
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
  },
};
