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
});
