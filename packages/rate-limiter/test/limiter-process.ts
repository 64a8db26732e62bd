import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { PgLimiterOptions } from '../src/pg-limiter';

const CHILD = fileURLToPath(new URL('./fixtures/limiter-process.ts', import.meta.url));

export interface ChildConfig {
  connectionString: string;
  limiter: Pick<PgLimiterOptions, 'key' | 'limit' | 'maxWaitingConnections' | 'holderName'>;
}

export type ChildCommand =
  | { type: 'hold'; id: string }
  | { type: 'release'; id: string }
  | { type: 'cycle'; workers: number; iterations: number; maxHoldMs: number }
  | { type: 'tasks'; count: number; durationMs: number };

export type ChildMessage =
  | { type: 'ready'; pid: number }
  | { type: 'acquired'; id: string; slot: number }
  | { type: 'intervals'; intervals: [number, number][] }
  | { type: 'failed'; error: string };

/** A real worker process with its own Postgres limiter, commanded over IPC. */
export interface LimiterProcess {
  pid: number;
  process: ChildProcess;
  send(command: ChildCommand): void;
  /** The next message of that type (and id, if given) this process sends; rejects if it fails or exits first. */
  next<T extends ChildMessage['type']>(type: T, id?: string): Promise<Extract<ChildMessage, { type: T }>>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** The same clock the children use: process.hrtime in milliseconds. */
export const now = () => Number(process.hrtime.bigint()) / 1e6;

export async function startLimiterProcess(config: ChildConfig): Promise<LimiterProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    env: { ...process.env, LIMITER_CHILD_CONFIG: JSON.stringify(config) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const inbox: ChildMessage[] = [];
  const waiters = new Set<() => void>();
  child.on('message', (message: ChildMessage) => {
    inbox.push(message);
    for (const wake of waiters) wake();
  });
  child.on('exit', () => {
    for (const wake of waiters) wake();
  });

  const next = <T extends ChildMessage['type']>(type: T, id?: string) =>
    new Promise<Extract<ChildMessage, { type: T }>>((resolve, reject) => {
      const check = () => {
        const index = inbox.findIndex(
          (message) => message.type === type && (id === undefined || ('id' in message && message.id === id)),
        );
        const failure = inbox.find((message) => message.type === 'failed');
        if (index >= 0) {
          waiters.delete(check);
          resolve(inbox.splice(index, 1)[0] as Extract<ChildMessage, { type: T }>);
        } else if (failure?.type === 'failed') {
          waiters.delete(check);
          reject(new Error(`limiter process ${child.pid} failed: ${failure.error}`));
        } else if (child.exitCode !== null || child.signalCode !== null) {
          waiters.delete(check);
          reject(new Error(`limiter process ${child.pid} exited before sending ${type}`));
        }
      };
      waiters.add(check);
      check();
    });

  const ready = await next('ready');
  return {
    pid: ready.pid,
    process: child,
    send: (command) => child.send(command),
    next,
    async kill(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill(signal);
      await exited;
    },
  };
}
