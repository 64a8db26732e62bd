import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { parseDatabaseUrl } from '@fusebox/db/database-url';
import { portSetting as port, readEnvironment } from '@fusebox/input';
import type { JsonLimits } from './input/json-scan';
import { DEFAULT_SANDBOX_UID_BASE, DEFAULT_SANDBOX_UID_BLOCK } from '@fusebox/local-sandbox/executor-options';

const positiveInt = (fallback: number) =>
  z.coerce
    .number({ error: 'expected a positive integer' })
    .int('expected a positive integer')
    .positive('expected a positive integer')
    .default(fallback);

const nonNegativeInt = (fallback: number) =>
  z.coerce
    .number({ error: 'expected a whole number, 0 or more' })
    .int('expected a whole number, 0 or more')
    .nonnegative('expected a whole number, 0 or more')
    .default(fallback);

/**
 * Node fires a timer of more than 2^31-1 ms at once, so no duration a timer waits for may be longer than this
 * many seconds.
 */
export const MAX_TIMER_S = Math.floor((2 ** 31 - 1) / 1000);

/** Whole seconds a timer can wait for: 1 to {@link MAX_TIMER_S}. */
const timerSeconds = (fallback: number) =>
  z.coerce
    .number({ error: 'expected a positive integer' })
    .int('expected a positive integer')
    .positive('expected a positive integer')
    .max(MAX_TIMER_S, `expected at most ${MAX_TIMER_S} seconds (about 24 days)`)
    .default(fallback);

const databaseUrl = z.string().superRefine((value, context) => {
  try {
    parseDatabaseUrl(value);
  } catch (error) {
    context.addIssue({ code: 'custom', message: (error as Error).message });
  }
});

/**
 * Every environment variable Fusebox reads, with its default. The README's configuration table lists these;
 * `process.env` is read nowhere else in the app.
 */
export const envSchema = z.object({
  /** Postgres, for several API processes or nodes sharing one database and one global limit. */
  DATABASE_URL: databaseUrl.optional(),
  /** Where the embedded database (PGlite) keeps its data when DATABASE_URL is unset. */
  FUSEBOX_DATA_DIR: z.string().min(1).default('.fusebox'),
  /** Longest a request's statement may run on Postgres (and, a second more, wait for an answer) before a 503. */
  FUSEBOX_DB_STATEMENT_TIMEOUT_MS: positiveInt(5000),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: port(8080),
  DASHBOARD_PORT: port(3000),
  SANDBOX_FUSION_URL: z.url({ error: 'expected an http(s) URL' }).optional(),
  FUSEBOX_API_TOKEN: z.string().min(1, 'must not be empty when set').optional(),
  /** Executions at once in every API process on the database together (the global limiter), over the budget. */
  FUSEBOX_MAX_CONCURRENCY: positiveInt(64),
  /** The limiter key every execution takes a permit of; API processes sharing a database and key share the limit. */
  FUSEBOX_LIMITER_KEY: z.string().min(1, 'must not be empty when set').default('run_code'),
  /** Longest an execution waits for a global permit before the API answers 429 (fractions allowed). */
  FUSEBOX_LIMITER_TIMEOUT_S: z.coerce
    .number({ error: 'expected a positive number of seconds' })
    .positive('expected a positive number of seconds')
    .max(MAX_TIMER_S, `expected at most ${MAX_TIMER_S} seconds (about 24 days)`)
    .default(60),
  FUSEBOX_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  FUSEBOX_LOG_FORMAT: z.enum(['pretty', 'json']).optional(),
  /** The most executions this executor runs at once: a ceiling; the memory and process budget admits them. */
  FUSEBOX_EXECUTOR_CONCURRENCY: positiveInt(256),
  FUSEBOX_EXECUTOR_QUEUE_LIMIT: positiveInt(1024),
  /** Longest an execution waits in the executor for room to run before a 429 that says the wait (0: no bound). */
  FUSEBOX_EXECUTOR_QUEUE_TIMEOUT_S: z.coerce
    .number({ error: 'expected a number of seconds of at least 0' })
    .min(0, 'expected a number of seconds of at least 0')
    .max(MAX_TIMER_S, `expected at most ${MAX_TIMER_S} seconds (about 24 days)`)
    .default(60),
  /** Memory of all sandboxes together (their parent cgroup's limit); unset: the machine's less the headroom. */
  FUSEBOX_EXECUTOR_MEMORY_BUDGET_MB: z.coerce
    .number({ error: 'expected a positive integer' })
    .int('expected a positive integer')
    .positive('expected a positive integer')
    .optional(),
  /** What one running execution counts for at least against the memory budget (what a sleeping run holds). */
  FUSEBOX_EXECUTOR_RUN_MEMORY_MB: positiveInt(64),
  /** The host's MemAvailable that must stay free once one more execution is admitted. */
  FUSEBOX_EXECUTOR_MEMORY_HEADROOM_MB: positiveInt(2048),
  /** Processes and threads of all sandboxes together (their parent cgroup's limit). */
  FUSEBOX_EXECUTOR_PROCESS_BUDGET: positiveInt(8192),
  /** What one running execution counts for at least against the process budget. */
  FUSEBOX_EXECUTOR_RUN_PROCESSES: positiveInt(16),
  /** The CPU weight (cgroup v1 cpu.shares) of all sandboxes together; one host process, such as the API, is 1024. */
  FUSEBOX_EXECUTOR_CPU_SHARES: z.coerce
    .number({ error: 'expected an integer from 2 to 262144' })
    .int('expected an integer from 2 to 262144')
    .min(2, 'expected an integer from 2 to 262144')
    .max(262_144, 'expected an integer from 2 to 262144')
    .default(8192),
  /** The cores one run may use at most (fractions allowed); 0: no bound beyond its fair share. */
  FUSEBOX_EXECUTOR_RUN_CPU_CORES: z.coerce
    .number({ error: 'expected a number of cores of at least 0' })
    .min(0, 'expected a number of cores of at least 0')
    .max(1024, 'expected at most 1024 cores')
    .default(0),
  FUSEBOX_EXECUTOR_ISOLATION: z
    .enum(['bwrap', 'none'], { error: "expected 'bwrap' or 'none'" })
    .default('bwrap'),
  FUSEBOX_EXECUTOR_OUTPUT_LIMIT_BYTES: positiveInt(1024 * 1024),
  /** What a /run_jupyter request's cells output together; the rest is dropped with a note. */
  FUSEBOX_EXECUTOR_JUPYTER_OUTPUT_LIMIT_BYTES: positiveInt(8 * 1024 * 1024),
  FUSEBOX_EXECUTOR_MEMORY_CAP_MB: positiveInt(2048),
  FUSEBOX_EXECUTOR_DISK_LIMIT_MB: positiveInt(512),
  FUSEBOX_EXECUTOR_MAX_PROCESSES: positiveInt(512),
  /** Open files per sandboxed process; at least 64, which bubblewrap's set-up descriptors need. */
  FUSEBOX_EXECUTOR_MAX_OPEN_FILES: z.coerce
    .number({ error: 'expected an integer from 64 to 1048576' })
    .int('expected an integer from 64 to 1048576')
    .min(64, 'expected an integer from 64 to 1048576')
    .max(1_048_576, 'expected an integer from 64 to 1048576')
    .default(4096),
  /** Sandboxes starting at once (the others wait their turn before their start timeout runs); unset: 2 × cores. */
  FUSEBOX_EXECUTOR_SANDBOX_STARTS: z.coerce
    .number({ error: 'expected a positive integer' })
    .int('expected a positive integer')
    .positive('expected a positive integer')
    .optional(),
  /** When Fusebox runs as root: the first of the unprivileged host uids sandboxes run as, one per sandbox. */
  FUSEBOX_SANDBOX_UID_BASE: positiveInt(DEFAULT_SANDBOX_UID_BASE),
  /**
   * Sandbox uids one server leases at a time (flocked files in /var/lib/fusebox/uid-leases): servers sharing a
   * machine and a base hold disjoint blocks of this many. At most 65536.
   */
  FUSEBOX_SANDBOX_UID_BLOCK: z.coerce
    .number({ error: 'expected a positive integer' })
    .int('expected a positive integer')
    .positive('expected a positive integer')
    .max(65_536, 'expected at most 65536 (the size of the sandbox uid range)')
    .default(DEFAULT_SANDBOX_UID_BLOCK),
  /** `on`: Python /run_code runs fork from zygotes (one per executor slot), and sessions from a session zygote. */
  FUSEBOX_PYTHON_ZYGOTE: z.enum(['on', 'off'], { error: "expected 'on' or 'off'" }).default('on'),
  /** Zygotes kept, each serving one run at a time (a run finding none idle goes cold): twice the cores. */
  FUSEBOX_PYTHON_ZYGOTES: positiveInt(2 * availableParallelism()),
  /** Modules every zygote imports before its first run, comma-separated (not installed: skipped). */
  FUSEBOX_PYTHON_ZYGOTE_MODULES: z
    .string()
    .regex(
      /^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*(,[A-Za-z_]\w*(\.[A-Za-z_]\w*)*)*$/,
      'expected Python module names separated by commas',
    )
    .transform((names) => names.split(','))
    .optional(),
  /** Runs one zygote forks, and seconds it lives, before it is replaced (new address-space layout, hash seed). */
  FUSEBOX_PYTHON_ZYGOTE_MAX_RUNS: positiveInt(1000),
  FUSEBOX_PYTHON_ZYGOTE_MAX_AGE_S: timerSeconds(600),
  /** Milliseconds a Python run that finds no zygote idle waits for one before it starts cold (0: never). */
  FUSEBOX_PYTHON_ZYGOTE_WAIT_MS: nonNegativeInt(300),
  /** `on`: a forked run's pid 1 is run-init where setup built it; `off`: a copy of the zygote (one more process). */
  FUSEBOX_PYTHON_RUN_INIT: z.enum(['on', 'off'], { error: "expected 'on' or 'off'" }).default('on'),
  FUSEBOX_MAX_BODY_BYTES: positiveInt(16 * 1024 * 1024),
  /** JSON bodies (and tRPC inputs) nested deeper than this are refused before they are parsed. */
  FUSEBOX_MAX_JSON_DEPTH: positiveInt(64),
  /**
   * Values and keys of one JSON body (and tRPC input), counted before it is parsed: parsing holds up every other
   * request for time that grows with them (20,000 distinct keys: 7 ms). The entry limits below fit well within.
   */
  FUSEBOX_MAX_JSON_VALUES: positiveInt(10_000),
  /** Entries of a request's `files`, and of its `fetch_files`, each (/run_code, /run_jupyter, sessions). */
  FUSEBOX_MAX_FILES: positiveInt(1000),
  /** Cells of one /run_jupyter request. */
  FUSEBOX_MAX_JUPYTER_CELLS: positiveInt(1000),
  /** The largest timeout a request may ask for: compile, run, cell and total timeouts, in seconds. */
  FUSEBOX_MAX_TIMEOUT_S: timerSeconds(3600),
  /**
   * The largest `memory_limit_MB` a request may ask for. Anything above the machine's memory means no limit
   * anyway; past 2^43 MB the bytes no longer fit the kernel's rlimit and the run would fail confusingly.
   */
  FUSEBOX_MAX_MEMORY_LIMIT_MB: positiveInt(1024 * 1024),
  /** The largest `idle_timeout` an interpreter session may ask for, in seconds. */
  FUSEBOX_MAX_SESSION_IDLE_TIMEOUT_S: timerSeconds(86_400),
  FUSEBOX_SESSION_MAX: positiveInt(64),
  FUSEBOX_SESSION_IDLE_TIMEOUT_S: timerSeconds(300),
  /** Active agent sessions (/start_instance) per API process; one more answers 503 with Retry-After. */
  FUSEBOX_AGENT_SESSION_MAX: positiveInt(4096),
  /** An agent session with no action for this long expires (its rewards can still be computed). */
  FUSEBOX_AGENT_SESSION_IDLE_TIMEOUT_S: timerSeconds(1800),
  /** /process_action observations longer than this are cut in the middle (a task may set its own limit). */
  FUSEBOX_AGENT_OBSERVATION_MAX_CHARS: positiveInt(8192),
  /** Actions one agent session takes at most; one more answers 409 FUSEBOX_SESSION_ACTION_LIMIT. */
  FUSEBOX_SESSION_MAX_ACTIONS: positiveInt(1000),
  /**
   * Bytes of code a stateful agent session's state holds (its actions' code since the state was last lost, which
   * each test of its reward replays); an action that would bring it past answers 409 FUSEBOX_SESSION_CODE_LIMIT.
   */
  FUSEBOX_SESSION_MAX_CODE_BYTES: positiveInt(4 * 1024 * 1024),
  /** Actions per page of a session's timeline in the dashboard (and errors shown). */
  FUSEBOX_DASHBOARD_ACTIONS_PAGE: positiveInt(50),
  /** Characters of an action's content, code and observation on the timeline; more is cut, with a way to see it. */
  FUSEBOX_DASHBOARD_PREVIEW_CHARS: positiveInt(4000),
  /** Characters of each of an action's texts when the dashboard shows one whole. */
  FUSEBOX_DASHBOARD_ACTION_MAX_CHARS: positiveInt(1_000_000),
  /** Samples one dashboard export of a step's list holds; the rest are the CLI's (`fusebox db export`). */
  FUSEBOX_DASHBOARD_EXPORT_MAX_SAMPLES: positiveInt(10_000),
  /** Lines a metric chart split by a text field draws (its commonest values). */
  FUSEBOX_DASHBOARD_CHART_GROUPS: positiveInt(8),
  /** Samples of one GRPO group shown side by side. */
  FUSEBOX_DASHBOARD_GROUP_MAX_SAMPLES: positiveInt(64),
  /** How often the dashboard's live views (executions, sessions, a run's import) read what changed. */
  FUSEBOX_DASHBOARD_LIVE_INTERVAL_MS: z.coerce
    .number({ error: 'expected a whole number of milliseconds, 100 to 60000' })
    .int('expected a whole number of milliseconds, 100 to 60000')
    .min(100, 'expected at least 100 ms')
    .max(60_000, 'expected at most 60000 ms')
    .default(1000),
  /** The corpus /retrieve searches when its path names none; unset, the only corpus imported. */
  FUSEBOX_RETRIEVE_CORPUS: z.string().min(1, 'must not be empty when set').optional(),
  /** Queries in one /retrieve request (Search-R1's rollout sends a whole batch's at once). */
  FUSEBOX_RETRIEVE_MAX_QUERIES: positiveInt(1024),
  /** The largest `topk` a /retrieve request may ask for. */
  FUSEBOX_RETRIEVE_MAX_TOPK: positiveInt(100),
  /** Characters of one /retrieve query. */
  FUSEBOX_RETRIEVE_MAX_QUERY_CHARS: positiveInt(4096),
  /** /retrieve requests searching at once, under their own limiter key (cluster-wide on Postgres). */
  FUSEBOX_RETRIEVE_MAX_CONCURRENCY: positiveInt(4),
  FUSEBOX_RETRIEVE_LIMITER_KEY: z.string().min(1, 'must not be empty when set').default('retrieve'),
  /**
   * Where FUSEBOX_RETRIEVE_MAX_CONCURRENCY counts: `cluster`, every API process on the Postgres database
   * (a permit costs round trips), or `process`, this one alone (in memory; for a single server). Embedded, always
   * `process`.
   */
  FUSEBOX_RETRIEVE_LIMITER: z
    .enum(['cluster', 'process'], { error: "expected 'cluster' or 'process'" })
    .default('cluster'),
  /** Megabytes of passages kept in memory for /retrieve, all corpora together; hits beyond are read from the database. */
  FUSEBOX_RETRIEVE_PASSAGE_MEMORY_MB: nonNegativeInt(1024),
  /**
   * /retrieve calls answered whose record is not yet committed, at most; past it, a call is answered only once
   * recorded. 0: every call is recorded before it is answered.
   */
  FUSEBOX_RETRIEVE_RECORD_BUFFER: nonNegativeInt(1024),
});

export type Env = z.infer<typeof envSchema>;

/** The limits every JSON body is scanned against before it is parsed. */
export function jsonLimits(env: Env): JsonLimits {
  return { maxDepth: env.FUSEBOX_MAX_JSON_DEPTH, maxValues: env.FUSEBOX_MAX_JSON_VALUES };
}

/** Reads and validates the environment; empty strings count as unset, as shells often export them so. */
export function readEnv(source: NodeJS.ProcessEnv = process.env): Env {
  return readEnvironment(envSchema, source);
}
