/** One limiter key's (or the local executor's) load at one moment. */
export interface KeyLoad {
  key: string;
  /** `limiter`: cluster-wide, from Postgres's lock table; `executor`: this API process's own sandbox queue. */
  source: 'limiter' | 'executor';
  limit: number;
  inFlight: number;
  waiting: number;
}

export interface LiveLoad {
  /** When it was sampled, ms since the epoch. */
  at: number;
  keys: KeyLoad[];
  /** Why the cluster-wide numbers are missing, when they are. */
  limiterError: string | null;
}

/** The lock table is locked while it is read, so it is sampled at most once a second however many watch. */
export const SAMPLE_INTERVAL_MS = 1_000;

/** Name of the local executor's row; its executions have no limiter key. */
export const EXECUTOR_KEY = 'executor';
