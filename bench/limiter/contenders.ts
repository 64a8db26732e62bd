// The four designs the bench puts side by side, each behind the same two calls. Each worker of a process gets
// its own `Slot` handle, as a rollout worker would.
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import pLimit from 'p-limit';
import pg from 'pg';
import { Semaphore } from 'redis-semaphore';
import { createPgLimiter } from '@fusebox/rate-limiter/pg';

export const CONTENDERS = ['fusebox', 'redis-semaphore', 'try-lock', 'p-limit'] as const;
export type ContenderName = (typeof CONTENDERS)[number];

export interface ContenderConfig {
  limit: number;
  databaseUrl: string;
  redisUrl: string;
  /** Workers this process runs: each may wait at once. */
  workers: number;
}

/** Acquire resolves once a slot is held and returns its release. */
export interface Contender {
  acquire(): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export async function createContender(name: ContenderName, config: ContenderConfig): Promise<Contender> {
  switch (name) {
    case 'fusebox':
      return fusebox(config);
    case 'redis-semaphore':
      return redisSemaphore(config);
    case 'try-lock':
      return tryLock(config);
    case 'p-limit':
      return inProcess(config);
  }
}

async function fusebox({ limit, databaseUrl, workers }: ContenderConfig): Promise<Contender> {
  // Every worker's waiter queues in Postgres itself, so arrival order is kept across processes.
  const limiter = await createPgLimiter({
    connectionString: databaseUrl,
    key: 'bench',
    limit,
    maxWaitingConnections: workers,
  });
  return {
    async acquire() {
      const permit = await limiter.acquire();
      return () => permit.release();
    },
    close: () => limiter.close(),
  };
}

function redisSemaphore({ limit, redisUrl }: ContenderConfig): Promise<Contender> {
  const redis = new Redis(redisUrl);
  return Promise.resolve({
    async acquire() {
      // redis-semaphore's defaults (10 ms retry interval, 10 s lock timeout with refresh), but never give up.
      const semaphore = new Semaphore(redis, 'fusebox-bench', limit, { acquireTimeout: 600_000 });
      await semaphore.acquire();
      return () => semaphore.release();
    },
    async close() {
      await redis.quit();
    },
  });
}

/**
 * The naive design on the same slots: no queue, each waiter tries every slot in one query and backs off
 * exponentially (1 to 64 ms, with jitter) until one is free. One dedicated connection per worker.
 */
async function tryLock({ limit, databaseUrl, workers }: ContenderConfig): Promise<Contender> {
  const namespace = 0x6e616976;
  const idle: pg.Client[] = await Promise.all(
    Array.from({ length: workers }, async () => {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      return client;
    }),
  );
  return {
    async acquire() {
      const client = idle.pop()!;
      for (let attempt = 0; ; attempt += 1) {
        const { rows } = await client.query<{ slot: number }>(
          'SELECT s AS slot FROM generate_series(1, $2::int) s WHERE pg_try_advisory_lock($1, s) LIMIT 1',
          [namespace, limit],
        );
        const slot = rows[0]?.slot;
        if (slot !== undefined) {
          return async () => {
            await client.query('SELECT pg_advisory_unlock($1, $2)', [namespace, slot]);
            idle.push(client);
          };
        }
        await sleep(Math.min(64, 2 ** attempt) * (0.5 + Math.random() / 2));
      }
    },
    async close() {
      await Promise.all(idle.map((client) => client.end()));
    },
  };
}

/** p-limit, in one process: no cluster, no database; the floor. */
function inProcess({ limit }: ContenderConfig): Promise<Contender> {
  const run = pLimit(limit);
  return Promise.resolve({
    acquire: () =>
      new Promise((granted) => {
        void run(() => new Promise<void>((done) => granted(() => Promise.resolve(done()))));
      }),
    close: () => Promise.resolve(),
  });
}
