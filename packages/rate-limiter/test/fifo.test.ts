import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type PostgresTestDatabase, createPostgresTestDatabase } from '@fusebox/db/testing';
import type { Limiter } from '../src/limiter';
import { createPgLimiter } from '../src/pg-limiter';
import { type ChildMessage, type LimiterProcess, startLimiterProcess } from './limiter-process';

describe('FIFO admission across processes', () => {
  let database: PostgresTestDatabase;
  let parent: Limiter;
  let processes: LimiterProcess[] = [];

  beforeAll(async () => {
    database = await createPostgresTestDatabase();
  });

  afterAll(async () => {
    await parent?.close();
    await Promise.all(processes.map((child) => child.kill()));
    await database?.drop();
  });

  it('admits waiters queued one after another across 3 processes in exactly that order', async () => {
    const options = { key: 'fifo', limit: 2 };
    parent = await createPgLimiter({ connectionString: database.url, ...options });
    processes = await Promise.all(
      Array.from({ length: 3 }, () =>
        startLimiterProcess({ connectionString: database.url, limiter: options }),
      ),
    );
    const admitted: string[] = [];
    const holderOf = new Map<string, LimiterProcess>();
    for (const child of processes) {
      child.process.on('message', (message: ChildMessage) => {
        if (message.type === 'acquired') admitted.push(message.id);
      });
    }

    // The slots are full; each waiter joins the queue only once the previous one is seen waiting in Postgres.
    const blockers = [await parent.acquire(), await parent.acquire()];
    const ids = Array.from({ length: 9 }, (_, i) => `w${i}`);
    for (const [i, id] of ids.entries()) {
      const child = processes[i % 3]!;
      holderOf.set(id, child);
      child.send({ type: 'hold', id });
      await vi.waitFor(async () => expect((await parent.stats()).waiting).toBe(i + 1), { timeout: 10_000 });
    }
    expect(admitted).toEqual([]);

    // Free one slot at a time: first the parent's two, then each admitted waiter's, and watch who gets it.
    const frees = [
      ...blockers.map((permit) => () => void permit.release()),
      ...ids.slice(0, 7).map((id) => () => holderOf.get(id)!.send({ type: 'release', id })),
    ];
    for (const [i, free] of frees.entries()) {
      free();
      await vi.waitFor(() => expect(admitted).toHaveLength(i + 1), { timeout: 10_000 });
    }
    expect(admitted).toEqual(ids);
  });
});
