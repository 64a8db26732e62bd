import type { CodeExecution } from '@fusebox/local-sandbox/executor';
import { createLocalLimiter, isLimiterError, type Limiter, type Permit } from '@fusebox/rate-limiter';
import { createPgLimiter } from '@fusebox/rate-limiter/pg';
import type { Env } from './env';
import { limiterOptions } from './limiter-options';

/** When an execution was asked for, got its permit, finished, and how long it queued in all. */
export type ExecutionTiming = CodeExecution['timing'];

/** What came of a gated execution: its result, or the news that its permit was lost while it ran. */
export type GateOutcome<T> =
  | { lost: undefined; execution: T }
  | {
      /** The PermitLostError: the execution was aborted, since it no longer counted against the limit. */
      lost: Error;
      timing: ExecutionTiming;
    };

/** Code of PermitLostError, compared by code so that any copy of the limiter package is recognised. */
const PERMIT_LOST = 'FUSEBOX_LIMITER_PERMIT_LOST';

/**
 * The global limit on executions: every execution (/run_code, /run_jupyter, session cells, agent actions) runs
 * under a permit of one limiter key, shared by every API process using the same database. The local executor's
 * own queue stays underneath. A wait longer than FUSEBOX_LIMITER_TIMEOUT_S rejects with LimiterTimeoutError
 * (the routes answer 429); a permit lost mid-run aborts the execution and comes back as `lost`.
 *
 * @example
 * const outcome = await gate.run((signal) => executor.runCode(body, { signal }), { signal });
 * if (outcome.lost) reply.send(sandboxError(outcome.lost.message));
 */
export class ExecutionGate {
  readonly #limiter: Limiter;

  constructor(limiter: Limiter) {
    this.#limiter = limiter;
  }

  /** The limiter key, as recorded in `execution.limiter_key`. */
  get key(): string {
    return this.#limiter.key;
  }

  /**
   * Runs `execute` under a permit, with a signal that aborts if the caller's does or the permit is lost. The
   * result's timing is the whole story: requested when asked, acquired when the permit came, and a queue wait
   * that adds the limiter's wait to the executor's.
   */
  async run<T extends { timing: ExecutionTiming }>(
    execute: (signal: AbortSignal) => Promise<T>,
    { signal }: { signal: AbortSignal },
  ): Promise<GateOutcome<T>> {
    const requestedAt = new Date();
    let held: Permit | undefined;
    try {
      const execution = await this.#limiter.withPermit(
        (permitSignal, permit) => {
          held = permit;
          return execute(AbortSignal.any([signal, permitSignal]));
        },
        { signal },
      );
      const { finishedAt, queueWaitMs } = execution.timing;
      const timing = {
        requestedAt,
        acquiredAt: held!.acquiredAt,
        finishedAt,
        queueWaitMs: held!.waitedMs + queueWaitMs,
      };
      return { lost: undefined, execution: { ...execution, timing } };
    } catch (error) {
      if (!held || !isLimiterError(error) || error.code !== PERMIT_LOST) throw error;
      return {
        lost: error,
        timing: {
          requestedAt,
          acquiredAt: held.acquiredAt,
          finishedAt: new Date(),
          queueWaitMs: held.waitedMs,
        },
      };
    }
  }

  /** Permits in flight and waiters now; for the cluster-wide gate, those of every API process. */
  stats(options: { signal?: AbortSignal } = {}) {
    return this.#limiter.stats(options);
  }

  close(): Promise<void> {
    return this.#limiter.close();
  }
}

/**
 * The gate of the database mode. With DATABASE_URL, the cluster-wide one on that Postgres: its permits are shared
 * with every API process there; rejects with LimiterUnavailableError if the database does not answer. Embedded,
 * one for this process alone: the embedded database serves a single process, and PGlite's single session could
 * not keep advisory locks apart anyway (createPgLimiter refuses it with LimiterSharedSessionError).
 */
export async function openExecutionGate(env: Env): Promise<ExecutionGate> {
  if (!env.DATABASE_URL) return localExecutionGate(env);
  return new ExecutionGate(
    await createPgLimiter({
      connectionString: env.DATABASE_URL,
      ...limiterOptions(env, env.FUSEBOX_LIMITER_KEY, env.FUSEBOX_MAX_CONCURRENCY),
    }),
  );
}

/** A gate for this process alone, for servers built without a cluster one (tests that build a server in process). */
export function localExecutionGate(env: Env): ExecutionGate {
  return new ExecutionGate(
    createLocalLimiter(limiterOptions(env, env.FUSEBOX_LIMITER_KEY, env.FUSEBOX_MAX_CONCURRENCY)),
  );
}
