import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LimiterUnavailableError } from '../src/errors/limiter-unavailable-error';
import type { Limiter } from '../src/limiter';
import { createPgLimiter } from '../src/pg-limiter';
import { type ThrowawayPostgres, startThrowawayPostgres } from '@fusebox/testing/throwaway-postgres';

// A frozen Postgres (SIGSTOP: connections stay open, nothing answers) must not stall the limiter's callers for
// the whole outage, nor make them report saturation: every wait is bounded by databaseTimeoutMs, and the
// limiter works again once the server thaws. The bounds below are generous on purpose (a loaded machine).
const DATABASE_TIMEOUT_MS = 1_000;

describe('a frozen Postgres', () => {
  let postgres: ThrowawayPostgres;
  let limiter: Limiter;

  beforeAll(async () => {
    postgres = await startThrowawayPostgres();
    limiter = await createPgLimiter({
      connectionString: postgres.url,
      key: 'frozen',
      limit: 1,
      databaseTimeoutMs: DATABASE_TIMEOUT_MS,
    });
  });

  afterAll(async () => {
    await postgres?.signal('SIGCONT');
    await limiter?.close();
    await postgres?.destroy();
  });

  /** How `work` ended (its error, if it failed) and how long it took. */
  const elapsed = async (work: Promise<unknown>): Promise<{ error?: unknown; ms: number }> => {
    const started = performance.now();
    const error = await work.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    return { error, ms: performance.now() - started };
  };

  it('bounds a release, fails waiting and new acquires as unavailable (not timed out), and recovers', async () => {
    const holder = await limiter.acquire();
    const waiter = elapsed(limiter.acquire({ timeoutMs: 60_000 }));
    await new Promise((resolve) => setTimeout(resolve, 300));

    await postgres.signal('SIGSTOP');
    const fresh = await elapsed(limiter.acquire({ timeoutMs: 60_000 }));
    expect(fresh.error).toBeInstanceOf(LimiterUnavailableError);
    expect(fresh.ms).toBeLessThan(30_000);

    const waited = await waiter;
    expect(waited.error).toBeInstanceOf(LimiterUnavailableError);
    expect(waited.ms).toBeLessThan(30_000);

    const released = await elapsed(holder.release());
    expect(released.error).toBeUndefined();
    expect(released.ms).toBeLessThan(30_000);

    await postgres.signal('SIGCONT');
    // The abandoned connections' goodbyes are read on thaw, so the slot comes back by itself.
    const again = await limiter.acquire({ timeoutMs: 10_000 });
    expect(again.slot).toBe(1);
    await again.release();
    expect((await limiter.stats()).inFlight).toBe(0);
  });

  it('opens through a database that answers slower than databaseTimeoutMs at start-up', async () => {
    // Registering a key is on no request's path: a server starting while its database is slow waits for it.
    // The key table is locked for three timeouts, so registering waits that long for its answer.
    const blocker = new pg.Client({ connectionString: postgres.url });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE limiter_key IN ACCESS EXCLUSIVE MODE');
      const opening = elapsed(
        createPgLimiter({
          connectionString: postgres.url,
          key: 'slow-start',
          limit: 1,
          databaseTimeoutMs: DATABASE_TIMEOUT_MS,
        }).then((opened) => opened.close()),
      );
      await new Promise((resolve) => setTimeout(resolve, 3 * DATABASE_TIMEOUT_MS));
      await blocker.query('COMMIT');
      const opened = await opening;
      expect(opened.error).toBeUndefined();
      expect(opened.ms).toBeGreaterThan(3 * DATABASE_TIMEOUT_MS);
    } finally {
      await blocker.end();
    }
  });
});
