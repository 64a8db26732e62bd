// The SQL of the Postgres limiter. Keys are two-int advisory locks (namespace, n): n = 0 is the key's FIFO gate,
// n = 1..limit its slots (see lock-namespace.ts). Every lock is session-level, so it lives exactly as long as
// the connection that took it: a process that dies frees its slots when Postgres sees its connection close.

/** Poll interval of the queue's head while every slot is busy; pg_sleep's resolution is 1 ms anyway. */
const HEAD_POLL_SECONDS = 0.001;

/** A single-int advisory lock (outside the keys' two-int space) held while the table is created. */
const CREATE_TABLE_LOCK = 7_301_774_511;

/** What a session is for: holding permits (and reading stats), or only reading stats. */
export type SessionPurpose = 'acquire' | 'read';

/**
 * Makes a new connection fit to hold a permit, in one round trip:
 * - no server default may cut a long wait or an idle holder short (statement, lock, idle timeouts);
 * - `client_connection_check_interval` (Postgres 14+) makes a backend notice within 100 ms that its client
 *   vanished, even while it waits in the gate's queue or polls for a slot, so a killed waiter leaves the queue;
 * - server-side TCP keepalives free a silent host's slots in about 25 s;
 * - `application_name` names the holder in pg_locks-based stats;
 * - for `acquire` sessions, the acquire routine: a temporary procedure, private to the session and dropped with
 *   it, so it always matches this version of the code and needs no migration. A procedure rather than a
 *   function because it must COMMIT its updates to the key's row before it hands the gate on: the next head
 *   reads them.
 *
 * The acquire routine joins the gate's queue (Postgres grants a lock's waiters in arrival order), then, as the
 * queue's head, polls the slots until it may take one, and leaves the gate to the next waiter. It reads the key's
 * row on every poll, so a new limit or start rate applies at once. It returns the slot, or NULL when `p_wait_ms`
 * ran out, having left the queue (in `slot`, its INOUT parameter). Lock waits and pg_sleep keep a snapshot, so
 * very long waits hold back vacuum.
 */
export function sessionSetupSql(applicationName: string, purpose: SessionPurpose): string {
  const settings = `
SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_session_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_connection_check_interval = '100ms';
SET tcp_keepalives_idle = 10;
SET tcp_keepalives_interval = 5;
SET tcp_keepalives_count = 3;
SET application_name = ${quoteLiteral(applicationName)};`;
  // A stats reader never acquires: it is spared the catalog writes of creating (and dropping) the procedure.
  return purpose === 'read'
    ? settings
    : `${settings}
CREATE OR REPLACE PROCEDURE pg_temp.fusebox_limiter_acquire(p_key text, p_ns int, p_wait_ms float8, INOUT slot int)
LANGUAGE plpgsql AS $fn$
DECLARE
  v_deadline timestamptz := CASE WHEN p_wait_ms IS NULL THEN 'infinity'
                                 ELSE clock_timestamp() + p_wait_ms * interval '1 ms' END;
  v_cfg record;
  v_slot int;
  v_busy int;
  v_above int;
  v_pause float8;
BEGIN
  -- A free gate is taken at once; a waiter cannot barge past a queue, since Postgres hands a released lock
  -- straight to its first waiter. Only a real wait pays for the subtransaction that catches its timeout.
  IF NOT pg_try_advisory_lock(p_ns, 0) THEN
    IF p_wait_ms IS NULL THEN
      PERFORM pg_advisory_lock(p_ns, 0);
    ELSE
      BEGIN
        PERFORM set_config('lock_timeout', greatest(1, ceil(p_wait_ms))::bigint || 'ms', true);
        PERFORM pg_advisory_lock(p_ns, 0);
      EXCEPTION WHEN lock_not_available THEN
        RETURN;
      END;
      PERFORM set_config('lock_timeout', '0', true);
    END IF;
  END IF;
  LOOP
    SELECT "limit", max_slot, max_starts_per_second, next_start_at INTO v_cfg
      FROM limiter_key WHERE key = p_key;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'limiter key % is not registered in limiter_key', p_key USING ERRCODE = 'no_data_found';
    END IF;
    v_slot := NULL;
    v_pause := ${HEAD_POLL_SECONDS};
    IF v_cfg.max_starts_per_second IS NOT NULL AND v_cfg.next_start_at > clock_timestamp() THEN
      -- The start-rate cap: a token bucket of one token, so starts are at least 1/rate apart cluster-wide.
      v_pause := extract(epoch FROM v_cfg.next_start_at - clock_timestamp());
    ELSE
      -- After the limit was lowered, holders above it still count against it until they release.
      v_above := 0;
      FOR s IN v_cfg."limit" + 1 .. v_cfg.max_slot LOOP
        IF pg_try_advisory_lock(p_ns, s) THEN
          PERFORM pg_advisory_unlock(p_ns, s);
        ELSE
          v_above := v_above + 1;
        END IF;
      END LOOP;
      IF v_above = 0 AND v_cfg.max_slot > v_cfg."limit" THEN
        UPDATE limiter_key SET max_slot = "limit"
          WHERE key = p_key AND max_slot = v_cfg.max_slot AND "limit" = v_cfg."limit";
        COMMIT;
      END IF;
      v_busy := v_above;
      FOR s IN 1 .. v_cfg."limit" LOOP
        IF pg_try_advisory_lock(p_ns, s) THEN
          IF v_slot IS NULL THEN v_slot := s; ELSE PERFORM pg_advisory_unlock(p_ns, s); END IF;
          -- Without holders above the limit the first free slot will do; with them, count every busy one.
          EXIT WHEN v_above = 0;
        ELSE
          v_busy := v_busy + 1;
        END IF;
      END LOOP;
      IF v_slot IS NOT NULL AND v_busy >= v_cfg."limit" THEN
        PERFORM pg_advisory_unlock(p_ns, v_slot);
        v_slot := NULL;
      END IF;
    END IF;
    IF v_slot IS NOT NULL THEN
      IF v_cfg.max_starts_per_second IS NOT NULL THEN
        UPDATE limiter_key
          SET next_start_at = clock_timestamp() + interval '1 s' / v_cfg.max_starts_per_second
          WHERE key = p_key;
        -- The next head must see this start before it gets the gate.
        COMMIT;
      END IF;
      PERFORM pg_advisory_unlock(p_ns, 0);
      slot := v_slot;
      RETURN;
    END IF;
    IF clock_timestamp() >= v_deadline THEN
      PERFORM pg_advisory_unlock(p_ns, 0);
      RETURN;
    END IF;
    IF v_deadline < 'infinity' THEN
      v_pause := least(v_pause, extract(epoch FROM v_deadline - clock_timestamp()));
    END IF;
    PERFORM pg_sleep(v_pause);
  END LOOP;
END
$fn$;`;
}

/** $1 key, $2 namespace, $3 milliseconds to wait or NULL for no bound → `slot` or NULL. */
export const ACQUIRE_SQL = {
  name: 'fusebox_limiter_acquire',
  text: 'CALL pg_temp.fusebox_limiter_acquire($1, $2, $3, NULL)',
};

/** $1 namespace, $2 slot → `released`, which is false only if this session did not hold the slot. */
export const RELEASE_SQL = {
  name: 'fusebox_limiter_release',
  text: 'SELECT pg_advisory_unlock($1, $2) AS released',
};

/**
 * Registers the key or updates its settings (the last process to start with a key sets its limit and start rate
 * for the whole cluster), returning the namespace every process must use. `max_slot` only grows here; acquires
 * shrink it once the holders above a lowered limit are gone.
 * $1 key, $2 namespace, $3 limit, $4 starts per second or NULL.
 */
/**
 * Creates the limiter's one table where it is missing (a database Fusebox's migrations never ran on), in the
 * shape those migrations give it, so the limiter works on any Postgres it may create tables in. The statements
 * run as one implicit transaction (one simple query), whose lock makes limiters that start together create the
 * table once: `IF NOT EXISTS` alone races in the catalog.
 */
export const CREATE_KEY_TABLE_SQL = `
SELECT pg_advisory_xact_lock(${CREATE_TABLE_LOCK});
CREATE TABLE IF NOT EXISTS limiter_key (
  key TEXT NOT NULL,
  lock_namespace INTEGER NOT NULL,
  "limit" INTEGER NOT NULL,
  max_starts_per_second DOUBLE PRECISION,
  created_at TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at TIMESTAMPTZ(3) NOT NULL,
  max_slot INTEGER NOT NULL DEFAULT 0,
  next_start_at TIMESTAMPTZ(6),
  CONSTRAINT limiter_key_pkey PRIMARY KEY (key)
);
CREATE UNIQUE INDEX IF NOT EXISTS limiter_key_lock_namespace_key ON limiter_key (lock_namespace);`;

export const REGISTER_KEY_SQL = `
INSERT INTO limiter_key (key, lock_namespace, "limit", max_slot, max_starts_per_second, updated_at)
VALUES ($1, $2, $3, $3, $4, now())
ON CONFLICT (key) DO UPDATE SET
  "limit" = EXCLUDED."limit",
  max_slot = greatest(limiter_key.max_slot, EXCLUDED."limit"),
  max_starts_per_second = EXCLUDED.max_starts_per_second,
  updated_at = EXCLUDED.updated_at
RETURNING lock_namespace`;

/** $1 key, $2 new limit → one row if the key exists. */
export const SET_LIMIT_SQL = `
UPDATE limiter_key SET "limit" = $2, max_slot = greatest(max_slot, $2), updated_at = now()
WHERE key = $1 RETURNING key`;

/**
 * Two probes of whether two connections are independent sessions: the first takes a lock, the second tries it.
 * The single-int form keeps the probe out of the limiter's two-int keys and its stats. $1 a random probe key.
 */
export const PROBE_LOCK_SQL = 'SELECT pg_try_advisory_lock($1::bigint) AS locked';
export const PROBE_UNLOCK_SQL = 'SELECT pg_advisory_unlock($1::bigint)';

/**
 * Every registered key with its lock holders and gate waiters, straight from the lock manager. $1 key, or NULL
 * for all keys.
 */
export const STATS_SQL = `
SELECT k.key, k."limit", l.objid::bigint AS n, l.granted, l.pid, a.application_name, a.state_change
FROM limiter_key k
LEFT JOIN pg_locks l
  ON l.locktype = 'advisory'
 AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
 AND l.classid = k.lock_namespace::oid
 AND l.objsubid = 2
LEFT JOIN pg_stat_activity a ON a.pid = l.pid
WHERE $1::text IS NULL OR k.key = $1
ORDER BY k.key, n`;

function quoteLiteral(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}
