import { type Logger, type LoggerOptions, pino } from 'pino';
import type { Env } from './env';

/**
 * Pino options: JSON lines for machines, or one readable line per event on a terminal. The format follows
 * FUSEBOX_LOG_FORMAT, else whether stdout is a TTY.
 */
export function loggerOptions(env: Pick<Env, 'FUSEBOX_LOG_LEVEL' | 'FUSEBOX_LOG_FORMAT'>): LoggerOptions {
  const pretty = (env.FUSEBOX_LOG_FORMAT ?? (process.stdout.isTTY ? 'pretty' : 'json')) === 'pretty';
  return {
    level: env.FUSEBOX_LOG_LEVEL,
    base: { pid: process.pid },
    redact: ['req.headers.authorization'],
    ...(pretty
      ? {
          transport: {
            target: 'pino-pretty',
            options: { translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname,reqId', singleLine: true },
          },
        }
      : {}),
  };
}

/** A logger with those options, for lines written before the server exists (it then logs through the same one). */
export function createLogger(env: Pick<Env, 'FUSEBOX_LOG_LEVEL' | 'FUSEBOX_LOG_FORMAT'>): Logger {
  return pino(loggerOptions(env));
}
