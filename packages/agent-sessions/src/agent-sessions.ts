import type { PrismaClient } from '@fusebox/db/client';
import { isDatabaseUnavailable } from '@fusebox/db/database-unavailable';
import { GroupCommit } from '@fusebox/db/group-commit';
import { storableJson, storableText } from '@fusebox/db/storable';
import { SessionNotFoundError as InterpreterNotFoundError } from '@fusebox/local-sandbox/errors';
import { computeReward, readTask, storedTask, storedTaskSelect, type StoredTask } from '@fusebox/tasks';
import {
  ConcurrentActionError,
  SessionActionLimitError,
  SessionCodeLimitError,
  SessionClosedError,
  SessionNotFoundError,
  SessionsFullError,
  TaskNotFoundError,
} from './errors';
import { extractCode } from './extract-code';
import { KeyedMutex } from './keyed-mutex';
import type { LiveSession } from './live-session';
import { describeAction } from './observation';
import { runAction } from './run-action';
import { runTests } from './run-tests';
import { type SessionSearch, scoreSearchSession, searchTurn } from './search-session';
import { replayBytes, stateCells } from './session-cells';
import { newSessionId } from './session-id';
import { type StoredAction, storeActions } from './store-action';
import type { SessionSandbox } from './session-sandbox';

export interface AgentSessionSettings {
  /** Active sessions this process holds at most; one more /start_instance answers 503. */
  maxSessions: number;
  /** A session with no action for this long expires (its interpreter is closed; rewards still work). */
  idleTimeoutMs: number;
  /** Observations longer than this are cut in the middle, unless the task sets its own limit. */
  maxObservationChars: number;
  /** Actions one session takes at most; one more is refused (409) and recorded against the session. */
  maxActions: number;
  /** Bytes of code a stateful session's state holds at most (its tests replay it); past it, an action is refused. */
  maxCodeBytes: number;
  /** Where failures of the background expiry go (the database was unreachable, say). */
  onExpiryError(error: unknown): void;
}

/** What /compute_reward answers: verl reads `reward`, or f2p_count / f2p_total without it. */
export interface RewardAnswer {
  reward: number;
  f2p_count: number;
  f2p_total: number;
  p2p_count: number;
  p2p_total: number;
}

/** What /postprocess answers (verl ignores it; people reading logs do not). */
export interface PostprocessSummary {
  sid: string;
  instance_hash: string;
  state: string;
  actions: number;
  errors: number;
  reward: number | null;
  created_at: string;
  postprocessed_at: string | null;
}

/** How long a client refused for lack of room should wait: sessions free up as episodes end. */
const SESSIONS_FULL_RETRY_AFTER_S = 5;
/** Idle sessions are looked for this often at most: a fraction of the idle timeout, so expiry is timely. */
const MAX_EXPIRY_INTERVAL_MS = 30_000;
/** Attempts at a fresh sid; a collision of 63 random bits is not expected even once. */
const SID_ATTEMPTS = 3;
/** How long a task read for /start_instance is reused. */
const TASK_CACHE_MS = 5_000;
/**
 * Tries of one action: the second runs on state rebuilt from the database, and fails only if yet another action
 * of the same session was stored meanwhile (a client sending one session's actions at once to two processes).
 */
const ACT_ATTEMPTS = 2;
/** Writes that share a statement: a row that fails alone fails only its own request; a sick database fails all. */
const GROUP_COMMIT = { failsEveryItem: isDatabaseUnavailable };
/** What search tasks meet on a server that serves no corpora. */
const NO_SEARCH: SessionSearch = {
  search: () => Promise.reject(new Error('this server has no search backend')),
};
/** Prisma's code for "the record to update was not found". */
const RECORD_NOT_FOUND = 'P2025';

/**
 * The agent sessions of verl's swedev protocol: /start_instance opens one on a task, /process_action runs the
 * model's code and answers what it printed, /postprocess frees it, /compute_reward runs the task's tests. Every
 * session's requests are handled one at a time, in arrival order; every action is stored before it is answered.
 * Sessions live in Postgres; a process keeps what it knows of one (a stateful session's interpreter) in memory,
 * and any process on the same database may serve any request: action numbers come from the database, and a
 * process whose copy went stale (another served the session meanwhile, or it restarted) rebuilds it from the
 * stored actions. Sticky routing by sid only saves those rebuilds.
 */
export class AgentSessions {
  readonly #prisma: PrismaClient;
  readonly #sandbox: SessionSandbox;
  readonly #settings: AgentSessionSettings;
  readonly #search: SessionSearch | undefined;
  readonly #live = new Map<string, LiveSession>();
  readonly #mutex = new KeyedMutex();
  readonly #expiry: NodeJS.Timeout;
  /** New session rows, inserted together: verl opens a whole batch's sessions at once. */
  readonly #inserts: GroupCommit<{ id: string; taskId: string; sessionMode: string }, boolean>;
  /** Finished actions, stored together: one commit for every action that finished while the last was written. */
  readonly #actionWrites: GroupCommit<StoredAction, number | undefined>;
  /** Tasks by instance_hash, briefly: a batch opens many sessions on few tasks. */
  readonly #tasks = new Map<string, { task: Promise<StoredTask | undefined>; at: number }>();
  #starting = 0;

  /** `search` serves search tasks; without it their actions answer that search is unavailable. */
  constructor(
    prisma: PrismaClient,
    sandbox: SessionSandbox,
    settings: AgentSessionSettings,
    search?: SessionSearch,
  ) {
    this.#prisma = prisma;
    this.#sandbox = sandbox;
    this.#settings = settings;
    this.#search = search;
    this.#inserts = new GroupCommit(async (rows) => {
      // A sid that collided is skipped, not failed, so the rest of the batch is inserted.
      const inserted = await prisma.session.createManyAndReturn({
        data: rows,
        skipDuplicates: true,
        select: { id: true },
      });
      const ids = new Set(inserted.map(({ id }) => id));
      return rows.map(({ id }) => ids.has(id));
    }, GROUP_COMMIT);
    this.#actionWrites = new GroupCommit(
      (actions) => storeActions(prisma, sandbox.executionColumns, actions, settings.maxActions),
      GROUP_COMMIT,
    );
    const interval = Math.max(1_000, Math.min(MAX_EXPIRY_INTERVAL_MS, settings.idleTimeoutMs / 4));
    this.#expiry = setInterval(
      () => void this.expireIdle().catch((error: unknown) => settings.onExpiryError(error)),
      interval,
    ).unref();
  }

  /** Active sessions in this process. */
  get size(): number {
    return this.#live.size;
  }

  /** Opens a session on the task an instance_hash names; the row is committed before the sid is returned. */
  async start(instanceHash: string): Promise<{ sid: string }> {
    if (this.#live.size + this.#starting >= this.#settings.maxSessions) {
      throw new SessionsFullError(this.#settings.maxSessions, SESSIONS_FULL_RETRY_AFTER_S);
    }
    this.#starting += 1;
    try {
      const task = await this.#task(instanceHash);
      if (!task) throw new TaskNotFoundError(instanceHash);
      let id = newSessionId();
      for (let attempt = 1; ; attempt += 1) {
        if (await this.#inserts.submit({ id, taskId: task.id, sessionMode: task.sessionMode })) break;
        // 63 random bits collided with an existing sid: not expected even once, but never answered twice.
        if (attempt >= SID_ATTEMPTS) throw new Error(`no unused sid found in ${SID_ATTEMPTS} attempts`);
        id = newSessionId();
      }
      this.#live.set(id, {
        id,
        task,
        actionCount: 0,
        cells: [],
        cellBytes: 0,
        interpreter: undefined,
      });
      return { sid: id };
    } finally {
      this.#starting -= 1;
    }
  }

  /**
   * Runs an action's code and answers the observation, after storing both. Any process on the database may serve
   * any action: a stateful session's interpreter state is this process's own, so if another process stored an
   * action of the session since this one last did, the state is rebuilt from the stored actions and the action
   * run again on it (a sandboxed run has no effect outside its interpreter, which is discarded).
   */
  async act(sid: string, content: string): Promise<{ content: string }> {
    return this.#mutex.run(sid, async () => {
      for (let attempt = 1; ; attempt += 1) {
        const live = await this.#liveSession(sid);
        // Checked before the code runs; the store checks it again against the database's count.
        if (live.actionCount >= this.#settings.maxActions) {
          throw new SessionActionLimitError(sid, this.#settings.maxActions);
        }
        const answer = await this.#act(live, content);
        if (answer) return answer;
        // Not stored: the session moved on elsewhere (or ended). Forget what this process knew of it.
        this.#drop(live);
        if (attempt >= ACT_ATTEMPTS) throw new ConcurrentActionError(sid);
      }
    });
  }

  /** One attempt of `act` on what this process knows of the session; undefined if the action was not stored. */
  async #act(live: LiveSession, content: string): Promise<{ content: string } | undefined> {
    const { task } = live;
    if (task.search) return this.#searchAct(live, content, task.search);
    const stateful = task.sessionMode === 'stateful';
    const code = extractCode(content, task.language);
    const codeBytes = this.#checkCodeLimit(live, code, stateful);
    const started = performance.now();
    const run = await runAction(this.#sandbox, live, code, this.#settings.idleTimeoutMs);
    const observation = describeAction(run.response, {
      runTimeoutS: task.settings.runTimeoutS,
      memoryLimitMB: task.settings.memoryLimitMB,
      maxChars: task.settings.maxObservationChars ?? this.#settings.maxObservationChars,
      stateful,
    });
    const seq = await this.#actionWrites.submit({
      sid: live.id,
      expectedSeq: stateful ? live.actionCount + 1 : undefined,
      content: storableText(content),
      code: storableText(code),
      observation: storableText(observation.text),
      search: null,
      status: observation.status,
      returnCode: observation.returnCode,
      durationMs: performance.now() - started,
      executions: run.rows.map((row) => ({ ...row, source: 'session_action' })),
      stateLost: observation.stateLost,
    });
    if (seq === undefined) return undefined;
    live.actionCount = seq;
    if (stateful) {
      if (observation.stateLost) {
        this.#closeInterpreter(live);
        live.cells = [];
        live.cellBytes = 0;
      } else {
        // As stored: a replay after the interpreter is lost then runs what the reward and other processes run.
        live.cells.push(storableText(code));
        live.cellBytes += codeBytes;
      }
    }
    return { content: observation.text };
  }

  /**
   * Refuses (409), before it runs, an action whose code would bring what the reward's tests carry past the limit:
   * a stateful session's cells and this code, a fresh session's code alone. The code's own size otherwise.
   */
  #checkCodeLimit(live: LiveSession, code: string, stateful: boolean): number {
    const codeBytes = replayBytes(code);
    const carried = (stateful ? live.cellBytes : 0) + codeBytes;
    if (carried > this.#settings.maxCodeBytes) {
      throw new SessionCodeLimitError(live.id, this.#settings.maxCodeBytes, carried);
    }
    return codeBytes;
  }

  /** A search task's action: its query searched (no code runs), stored like any action before it is answered. */
  async #searchAct(
    live: LiveSession,
    content: string,
    spec: NonNullable<StoredTask['search']>,
  ): Promise<{ content: string } | undefined> {
    const started = performance.now();
    const turn = await searchTurn(this.#search ?? NO_SEARCH, spec, content);
    const seq = await this.#actionWrites.submit({
      sid: live.id,
      expectedSeq: undefined,
      content: storableText(content),
      code: storableText(turn.query ?? ''),
      observation: storableText(turn.observation),
      search: turn.record ?? null,
      status: turn.status,
      returnCode: null,
      durationMs: performance.now() - started,
      executions: [],
      stateLost: false,
    });
    if (seq === undefined) return undefined;
    live.actionCount = seq;
    return { content: turn.observation };
  }

  /** Ends a session and frees its interpreter. Idempotent: later calls answer the same summary. */
  async postprocess(sid: string): Promise<PostprocessSummary> {
    return this.#mutex.run(sid, async () => {
      const live = this.#live.get(sid);
      if (live) this.#drop(live);
      // An expired session stays expired: it was already freed, and its state says why it ended.
      await this.#prisma.session.updateMany({
        where: { id: sid, state: 'active' },
        data: { state: 'postprocessed', postprocessedAt: new Date() },
      });
      const row = await this.#prisma.session.findUnique({
        where: { id: sid },
        select: {
          taskId: true,
          state: true,
          actionCount: true,
          errorCount: true,
          reward: true,
          createdAt: true,
          postprocessedAt: true,
        },
      });
      if (!row) throw new SessionNotFoundError(sid);
      return {
        sid,
        instance_hash: row.taskId,
        state: row.state,
        actions: row.actionCount,
        errors: row.errorCount,
        reward: row.reward,
        created_at: row.createdAt.toISOString(),
        postprocessed_at: row.postprocessedAt?.toISOString() ?? null,
      };
    });
  }

  /**
   * Runs the task's tests against the session's solution and stores the outcome. Idempotent: while no action
   * came after it, the stored reward is answered again. It closes the session's interpreter, since verl asks
   * for rewards after the episode (an action after it gets the state back by replay).
   */
  async computeReward(sid: string): Promise<RewardAnswer> {
    return this.#mutex.run(sid, async () => {
      const row = await this.#prisma.session.findUnique({
        where: { id: sid },
        select: {
          lastActionAt: true,
          rewardAt: true,
          reward: true,
          f2pCount: true,
          f2pTotal: true,
          p2pCount: true,
          p2pTotal: true,
          task: { select: storedTaskSelect },
        },
      });
      if (!row) throw new SessionNotFoundError(sid);
      if (row.rewardAt && row.reward !== null && (!row.lastActionAt || row.lastActionAt <= row.rewardAt)) {
        return {
          reward: row.reward,
          f2p_count: row.f2pCount ?? 0,
          f2p_total: row.f2pTotal ?? 0,
          p2p_count: row.p2pCount ?? 0,
          p2p_total: row.p2pTotal ?? 0,
        };
      }
      const live = this.#live.get(sid);
      if (live) this.#closeInterpreter(live);
      const task = storedTask(row.task);
      if (task.search) return this.#searchReward(sid, task.search);
      const actions = await this.#prisma.action.findMany({
        where: { sessionId: sid },
        orderBy: { seq: 'asc' },
        select: { code: true, status: true },
      });
      const { outcomes, counts, rows } = await runTests(this.#sandbox, task, actions);
      const reward = computeReward(task.settings.reward, counts);
      await this.#prisma.$transaction([
        this.#prisma.execution.createMany({
          data: rows.map((execution) => ({ ...execution, source: 'session_reward', sessionId: sid })),
        }),
        this.#prisma.session.update({
          where: { id: sid },
          data: { reward, ...counts, rewardAt: new Date(), rewardDetail: storableJson(outcomes) },
          select: { id: true },
        }),
      ]);
      return {
        reward,
        f2p_count: counts.f2pCount,
        f2p_total: counts.f2pTotal,
        p2p_count: counts.p2pCount,
        p2p_total: counts.p2pTotal,
      };
    });
  }

  /** Scores a search session's final answer and stores the reward (no sandbox run: the rule is a comparison). */
  async #searchReward(sid: string, spec: NonNullable<StoredTask['search']>): Promise<RewardAnswer> {
    const actions = await this.#prisma.action.findMany({
      where: { sessionId: sid },
      orderBy: { seq: 'asc' },
      select: { content: true },
    });
    const { reward, outcome } = scoreSearchSession(spec, actions);
    const counts = { f2pCount: outcome.passed ? 1 : 0, f2pTotal: 1, p2pCount: 0, p2pTotal: 0 };
    await this.#prisma.session.update({
      where: { id: sid },
      data: { reward, ...counts, rewardAt: new Date(), rewardDetail: storableJson([outcome]) },
      select: { id: true },
    });
    return { reward, f2p_count: counts.f2pCount, f2p_total: 1, p2p_count: 0, p2p_total: 0 };
  }

  /**
   * Records a failed request against its session, since verl turns every non-200 into a silent reward of 0:
   * the dashboard and `sessions.byId` show it. Does nothing for a sid that names no session.
   */
  async recordError(sid: string, route: string, message: string): Promise<void> {
    try {
      await this.#prisma.session.update({
        where: { id: sid },
        data: {
          errorCount: { increment: 1 },
          events: { create: { level: 'error', route, message: storableText(message) } },
        },
        select: { id: true },
      });
    } catch (error) {
      if (prismaCode(error) !== RECORD_NOT_FOUND) throw error;
    }
  }

  /**
   * Expires active sessions idle longer than the idle timeout, cluster-wide (by their last action in the
   * database), except those with a request in progress here; frees those held here. Resolves to how many expired.
   */
  async expireIdle(): Promise<number> {
    const now = Date.now();
    // Also forget stale task reads, so the cache holds only tasks opened recently.
    for (const [hash, { at }] of this.#tasks) if (now - at >= TASK_CACHE_MS) this.#tasks.delete(hash);
    const cutoff = new Date(now - this.#settings.idleTimeoutMs);
    const expired = await this.#prisma.session.updateManyAndReturn({
      where: {
        state: 'active',
        id: { notIn: this.#mutex.keys() },
        OR: [{ lastActionAt: { lt: cutoff } }, { lastActionAt: null, createdAt: { lt: cutoff } }],
      },
      data: { state: 'expired' },
      select: { id: true },
    });
    if (expired.length === 0) return 0;
    // Forgotten before anything else is awaited: an action arriving from now on must read the expired state, not
    // find the session still held here.
    for (const { id } of expired) {
      const live = this.#live.get(id);
      if (live && !this.#mutex.busy(id)) this.#drop(live);
    }
    const message = `expired after ${this.#settings.idleTimeoutMs / 1000} s without an action`;
    await this.#prisma.sessionEvent.createMany({
      data: expired.map(({ id }) => ({ sessionId: id, level: 'info', route: 'idle timeout', message })),
    });
    return expired.length;
  }

  /** Stops expiring and frees every session held here (their rows stay active: they resume after a restart). */
  close(): void {
    clearInterval(this.#expiry);
    for (const live of this.#live.values()) this.#drop(live);
  }

  /** The task an instance_hash names, read at most once per TASK_CACHE_MS (imports take effect after that). */
  #task(instanceHash: string): Promise<StoredTask | undefined> {
    const cached = this.#tasks.get(instanceHash);
    if (cached && Date.now() - cached.at < TASK_CACHE_MS) return cached.task;
    const task = readTask(this.#prisma, instanceHash);
    this.#tasks.set(instanceHash, { task, at: Date.now() });
    task.catch(() => this.#tasks.delete(instanceHash));
    return task;
  }

  async #liveSession(sid: string): Promise<LiveSession> {
    const cached = this.#live.get(sid);
    if (cached) return cached;
    const row = await this.#prisma.session.findUnique({
      where: { id: sid },
      select: { state: true, actionCount: true, task: { select: storedTaskSelect } },
    });
    if (!row) throw new SessionNotFoundError(sid);
    if (row.state !== 'active') throw new SessionClosedError(sid, row.state);
    // Held by no process (Fusebox restarted): rebuild it from its stored actions.
    const task = storedTask(row.task);
    const actions =
      task.sessionMode === 'stateful'
        ? await this.#prisma.action.findMany({
            where: { sessionId: sid },
            orderBy: { seq: 'asc' },
            select: { code: true, status: true },
          })
        : [];
    const cells = stateCells(actions);
    const live: LiveSession = {
      id: sid,
      task,
      actionCount: row.actionCount,
      cells,
      cellBytes: cells.reduce((sum, cell) => sum + replayBytes(cell), 0),
      interpreter: undefined,
    };
    this.#live.set(sid, live);
    return live;
  }

  #closeInterpreter(live: LiveSession): void {
    if (live.interpreter === undefined) return;
    const { interpreter } = live;
    live.interpreter = undefined;
    try {
      this.#sandbox.executor.sessions.close(interpreter);
    } catch (error) {
      // Already gone: the executor closes idle interpreters on its own.
      if (!(error instanceof InterpreterNotFoundError)) throw error;
    }
  }

  #drop(live: LiveSession): void {
    this.#closeInterpreter(live);
    this.#live.delete(live.id);
  }
}

function prismaCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
