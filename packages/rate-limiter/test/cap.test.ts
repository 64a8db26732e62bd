import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PostgresTestDatabase, createPostgresTestDatabase } from '@fusebox/db/testing';
import { type LimiterProcess, startLimiterProcess } from './limiter-process';
import { maxOverlap } from '@fusebox/testing/max-overlap';

describe('the cap across processes', () => {
  let database: PostgresTestDatabase;
  let processes: LimiterProcess[] = [];

  beforeAll(async () => {
    database = await createPostgresTestDatabase();
  });

  afterAll(async () => {
    await Promise.all(processes.map((child) => child.kill()));
    await database?.drop();
  });

  it('4 processes × 25 workers under a limit of 10 never overlap more than 10, and do reach 10', async () => {
    processes = await Promise.all(
      Array.from({ length: 4 }, () =>
        startLimiterProcess({
          connectionString: database.url,
          limiter: { key: 'cap', limit: 10, maxWaitingConnections: 6 },
        }),
      ),
    );
    const results = processes.map((child) => child.next('intervals'));
    for (const child of processes) child.send({ type: 'cycle', workers: 25, iterations: 8, maxHoldMs: 20 });
    const intervals = (await Promise.all(results)).flatMap((message) => message.intervals);

    expect(intervals).toHaveLength(4 * 25 * 8);
    expect(maxOverlap(intervals)).toBe(10);
  });
});
