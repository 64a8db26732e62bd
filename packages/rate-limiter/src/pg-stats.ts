import type { Holder, LimiterStats } from './limiter';
import { STATS_SQL } from './limiter-sql';
import { APPLICATION_NAME_PREFIX, type PgSession } from './pg-session';

interface StatsRow {
  key: string;
  limit: number;
  /** 0 for the gate, a slot number otherwise; null when the key has no locks at all. */
  n: string | null;
  granted: boolean | null;
  pid: number | null;
  application_name: string | null;
  state_change: Date | null;
}

/**
 * Reads the cluster-wide state of one key (or of every key) from `pg_locks`: in flight = granted slot locks,
 * waiting = every session on the gate (the head holds it while it polls; the rest queue for it). Reading
 * `pg_locks` briefly locks the whole lock table, so callers should poll at most about once a second. A database
 * silent past `timeoutMs` ends the session (PgSession.query).
 */
export async function readStats(
  session: PgSession,
  key: string | null,
  timeoutMs = Infinity,
): Promise<LimiterStats[]> {
  const rows = await session.query<StatsRow>({ text: STATS_SQL }, [key], timeoutMs);
  const byKey = new Map<string, LimiterStats>();
  for (const row of rows) {
    let stats = byKey.get(row.key);
    if (!stats) {
      stats = { key: row.key, limit: row.limit, inFlight: 0, waiting: 0, holders: [] };
      byKey.set(row.key, stats);
    }
    if (row.n === null) continue;
    const n = Number(row.n);
    if (n === 0) {
      stats.waiting += 1;
    } else if (row.granted) {
      stats.inFlight += 1;
      stats.holders.push(holder(n, row));
    }
  }
  return [...byKey.values()];
}

function holder(slot: number, row: StatsRow): Holder {
  const name = row.application_name ?? '';
  return {
    slot,
    holder: name.startsWith(APPLICATION_NAME_PREFIX) ? name.slice(APPLICATION_NAME_PREFIX.length) : name,
    since: row.state_change,
    pid: row.pid,
  };
}
