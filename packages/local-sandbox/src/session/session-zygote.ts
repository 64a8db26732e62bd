import { constants, openSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Socket } from 'node:net';
import { BackgroundStarts } from '../background-starts';
import type { SandboxCgroup, StarvationCounters } from '../cgroups';
import type { LineChannel } from '../line-channel';
import { childrenOf } from '../process-tree';
import { zygoteCommand, zygoteProcess, zygoteStartOptions } from '../python-zygotes';
import { type Sandbox, setNiceness } from '../sandbox';
import { joinRunCgroup, type SandboxLauncher } from '../sandbox-launcher';
import type { ExitStatus } from '../spawner';
import { within } from '../step-timer';
import { writeFiles } from '../workdir-files';
import type { KernelProcess } from './interpreter';

/** The session's fifos in the zygote's /tmp, as python-zygote.py names them (control first). */
const SESSION_FIFOS = ['.fusebox-session-control', '.fusebox-session-events'] as const;
/** A zygote that has not answered a step of a fork after this long is stuck: it is killed, and sessions go warm. */
const FORK_GUARD_MS = 10_000;

/** How session zygotes are made and how long one forks. */
export interface SessionZygoteSettings {
  /** Modules the zygote imports (besides the kernel's IPython) before its first fork. */
  modules: readonly string[];
  /** Sessions a zygote forks before a new one takes over (address-space layout and hash seed then change). */
  maxForks: number;
  /** How long a zygote forks sessions before a new one takes over, in ms. */
  maxAgeMs: number;
  diskBytes: number;
  maxProcesses: number | undefined;
}

/**
 * The interpreter of one session forked from a session zygote: its own namespaces (network included), tmpfs,
 * cgroup and user namespace, talking over fifos of its own. Killing it kills its cgroup, so every process it
 * started; `closed` resolves when the zygote has reaped its init.
 */
class ForkedKernel implements KernelProcess {
  readonly control: Socket;
  readonly events: LineChannel;
  readonly closed: Promise<ExitStatus>;
  readonly forkedAt = performance.now();
  readonly #cgroup: SandboxCgroup;
  readonly #events: Socket;
  #ended: (status: ExitStatus) => void = () => {};
  #exited = false;

  constructor(control: Socket, events: Socket, channel: LineChannel, cgroup: SandboxCgroup) {
    this.control = control;
    this.#events = events;
    this.events = channel;
    this.#cgroup = cgroup;
    this.closed = new Promise((resolve) => (this.#ended = resolve));
  }

  get alive(): boolean {
    return !this.#exited;
  }

  /** Called when the zygote reports the init reaped (or the zygote itself is gone, and the session with it). */
  ended(status: ExitStatus): void {
    this.#exited = true;
    this.#ended(status);
  }

  kill(): void {
    this.#cgroup.killAll();
  }

  starvationCounters(): StarvationCounters {
    return this.#cgroup.starvationCounters();
  }

  starvedBySharedBudget(since?: StarvationCounters): string | undefined {
    return this.#cgroup.starvedBySharedBudget(since);
  }

  async dispose(): Promise<void> {
    this.kill();
    await this.closed;
    this.control.destroy();
    this.#events.destroy();
    await this.#cgroup.remove();
  }
}

/** One live session zygote: its sandbox, and the sessions it forked that are still running. */
class SessionZygote {
  readonly sandbox: Sandbox;
  readonly pid: number;
  readonly startedAt = performance.now();
  forks = 0;
  readonly sessions = new Map<number, ForkedKernel>();
  /** The next reply to a fork step ("ready", "forked N"), or undefined when the zygote is gone. */
  #reply: ((line: string | undefined) => void) | undefined;
  /** Replies not yet asked for: the first `ready`, which the launcher read, is the zygote waiting for a job. */
  readonly #replies: Array<string | undefined> = ['ready'];
  #gone = false;

  /** `onEmpty`: its last session has ended, or it is gone (with them all); `gone` tells which. */
  constructor(sandbox: Sandbox, pid: number, onEmpty: () => void) {
    this.sandbox = sandbox;
    this.pid = pid;
    void this.#read(onEmpty);
  }

  get gone(): boolean {
    return this.#gone;
  }

  /** Puts back a `ready` taken for a fork that did not happen: the zygote is still waiting for a job. */
  ready(): void {
    this.#replies.unshift('ready');
  }

  /** The zygote's next reply to a fork step; undefined when it died or said nothing for {@link FORK_GUARD_MS}. */
  reply(): Promise<string | undefined> {
    if (this.#replies.length > 0) return Promise.resolve(this.#replies.shift());
    if (this.#gone) return Promise.resolve(undefined);
    const next = new Promise<string | undefined>((resolve) => {
      this.#reply = resolve;
    });
    return within(next, FORK_GUARD_MS, () => {
      this.sandbox.kill();
      this.#deliver(undefined);
    });
  }

  async #read(onEmpty: () => void): Promise<void> {
    for (
      let line = await this.sandbox.events.next();
      line !== undefined;
      line = await this.sandbox.events.next()
    ) {
      const [event, pid, status] = line.split(' ');
      if (event === 'ended' && pid !== undefined && status !== undefined) {
        this.sessions.get(Number(pid))?.ended(exitStatus(Number(status)));
        this.sessions.delete(Number(pid));
        if (this.sessions.size === 0) onEmpty();
      } else {
        this.#deliver(line);
      }
    }
    // The zygote is gone, and with its sandbox's pid namespace every session it forked.
    this.#gone = true;
    this.#deliver(undefined);
    for (const session of this.sessions.values()) session.ended({ code: null, signal: 9 });
    this.sessions.clear();
    onEmpty();
  }

  #deliver(line: string | undefined): void {
    const reply = this.#reply;
    this.#reply = undefined;
    if (reply) reply(line);
    else this.#replies.push(line);
  }
}

/**
 * Forks interpreter sessions from a Python zygote that has the kernel (and IPython's shell) loaded, so a new
 * session is ready in milliseconds instead of an interpreter's start. One zygote forks at a time, one session after
 * another; it is replaced after `maxForks` sessions or `maxAgeMs`, and lives on (forking no more) until its
 * last session ends. {@link fork} resolves undefined whenever no zygote can fork now (starting, crashed, no
 * cgroups): the caller then takes a warm sandbox, so a zygote's failure never fails a session. The first zygote
 * starts with the first session asked for (which goes warm): a server that only runs code (most verl users)
 * never pays for IPython's import nor for the session held ahead.
 */
export class SessionZygotes {
  readonly #launcher: SandboxLauncher;
  readonly #settings: SessionZygoteSettings;
  readonly #onError: (error: unknown) => void;
  readonly #background: BackgroundStarts;
  #current: SessionZygote | undefined;
  /** Zygotes that fork no more but still have sessions running; disposed of when the last one ends. */
  readonly #retired = new Set<SessionZygote>();
  #forked = 0;
  #starting = false;
  #closed = false;
  #queue: Promise<unknown> = Promise.resolve();
  /** A session forked without files before anyone asked for it (see {@link fork}). */
  #ahead: Promise<ForkedKernel | undefined> | undefined;

  constructor(launcher: SandboxLauncher, settings: SessionZygoteSettings, onError: (error: unknown) => void) {
    this.#launcher = launcher;
    this.#settings = settings;
    this.#onError = onError;
    this.#background = new BackgroundStarts(onError, () => this.#start());
  }

  /** Whether a zygote is up to fork the next session. */
  get ready(): boolean {
    return this.#current !== undefined && !this.#current.gone;
  }

  /** Sessions forked so far. */
  get forked(): number {
    return this.#forked;
  }

  /**
   * A fresh session interpreter with `files` in its working directory; undefined when no zygote can fork one
   * now. Throws what `writeFiles` throws for a bad path. A session without files takes the one forked ahead,
   * when there is one: it is then ready as soon as a warm sandbox would be.
   */
  async fork(files: Record<string, string | null>): Promise<ForkedKernel | undefined> {
    const current = this.#current;
    if (current && this.#expired(current)) this.#retire(current, false);
    const ahead = Object.keys(files).length === 0 ? await this.#takeAhead() : undefined;
    const kernel = ahead ?? (await this.#queued(files));
    this.#forkAhead();
    if (kernel) this.#forked += 1;
    return kernel;
  }

  /** Forks one after another: each fork is a short exchange with the one zygote. */
  #queued(files: Record<string, string | null>): Promise<ForkedKernel | undefined> {
    const forked = this.#queue.then(() => this.#fork(files));
    this.#queue = forked.catch(() => undefined);
    return forked;
  }

  /** The session forked ahead, if it is (or will be) alive; there is none until {@link #forkAhead} again. */
  async #takeAhead(): Promise<ForkedKernel | undefined> {
    const ahead = this.#ahead;
    this.#ahead = undefined;
    const kernel = await ahead?.catch(() => undefined);
    // Dead, or forked from a zygote so long ago that it would share a layout and hash seed meant to be replaced.
    if (kernel && (!kernel.alive || performance.now() - kernel.forkedAt >= this.#settings.maxAgeMs)) {
      this.release(kernel);
      return undefined;
    }
    return kernel;
  }

  /** Forks a session without files ahead of the next request for one, when a zygote is up and none is ahead. */
  #forkAhead(): void {
    if (this.#closed || this.#ahead || !this.ready) return;
    this.#ahead = this.#queued({});
    this.#ahead.catch(this.#onError);
  }

  /** Lets the session forked ahead go (its zygote is being replaced, or this is closing). */
  #dropAhead(): void {
    this.#background.track(this.#takeAhead().then((kernel) => kernel && this.release(kernel)));
  }

  async #fork(files: Record<string, string | null>): Promise<ForkedKernel | undefined> {
    const zygote = this.#current;
    if (this.#closed || !zygote || zygote.gone) {
      if (zygote?.gone) this.#retire(zygote, true);
      else this.#start();
      return undefined;
    }
    // Without a cgroup of its own a session could not be bounded nor killed as one: it takes a warm sandbox.
    let cgroup: SandboxCgroup | undefined;
    try {
      cgroup = this.#launcher.runCgroup();
    } catch (error) {
      this.#onError(error);
    }
    if (!cgroup) return undefined;
    const removeCgroup = () => cgroup.remove().catch(this.#onError);
    if ((await zygote.reply()) !== 'ready') {
      await removeCgroup();
      return this.#broken(zygote);
    }
    const { workdir } = zygote.sandbox;
    try {
      await writeFiles(workdir, files);
    } catch (error) {
      // The next session must not find part of these files: the zygote empties its staging directory only
      // after a fork.
      for (const entry of readdirSync(workdir.host))
        rmSync(join(workdir.host, entry), { recursive: true, force: true });
      zygote.ready();
      await removeCgroup();
      throw error;
    }
    // Joined by hand: `tmp` may be `/proc/self/fd/N/..`, which path.join would collapse. Read-write, so the
    // control fifo has a reader (the init's, later) whatever happens; the events fifo's reader is ours.
    const [controlPath, eventsPath] = SESSION_FIFOS.map((name) => `${workdir.tmp}/${name}`) as [
      string,
      string,
    ];
    const sockets: Socket[] = [];
    try {
      for (const [path, flags] of [
        [controlPath, constants.O_RDWR],
        [eventsPath, constants.O_RDONLY],
      ] as const) {
        const socket = new Socket({
          fd: openSync(path, flags | constants.O_NONBLOCK),
          readable: flags === constants.O_RDONLY,
          writable: flags === constants.O_RDWR,
        });
        socket.on('error', () => {});
        sockets.push(socket);
      }
    } catch (error) {
      // Out of fds, say: nothing was asked of the zygote, which still waits for a job.
      for (const socket of sockets) socket.destroy();
      this.#onError(error);
      zygote.ready();
      await removeCgroup();
      return undefined;
    }
    const [control, events] = sockets as [Socket, Socket];
    const kernel = new ForkedKernel(control, events, this.#launcher.eventChannel(events), cgroup);
    let started = false;
    try {
      zygote.sandbox.control.write('{}\n');
      zygote.forks += 1;
      const [event, pid] = (await zygote.reply())?.split(' ') ?? [];
      const init =
        event === 'forked' && pid && /^[0-9]+$/.test(pid) ? hostPid(zygote.pid, Number(pid)) : undefined;
      if (init === undefined) {
        kernel.ended({ code: null, signal: 9 }); // nothing of it runs, or it dies with the zygote now
        return this.#broken(zygote);
      }
      zygote.sessions.set(Number(pid), kernel);
      try {
        await joinRunCgroup(cgroup, init);
      } catch (error) {
        // Its init waits for `go` in the zygote's cgroup, and the zygote for the host: neither can go on.
        this.#onError(error);
        return this.#broken(zygote);
      }
      setNiceness(init, 0); // the zygote runs in the background; the session does not
      zygote.sandbox.control.write('go\n');
      // Not waited for past the guard even if the kill misses: the fork queue behind it must move on.
      if ((await within(kernel.events.next(), FORK_GUARD_MS, () => kernel.kill())) !== 'ready')
        return undefined;
      started = true;
      // Counted as a good start only now: a zygote that starts but cannot fork keeps backing off.
      this.#background.started();
      return kernel;
    } finally {
      if (!started) this.#background.track(kernel.dispose());
      if (zygote.forks >= this.#settings.maxForks || this.#expired(zygote)) this.#retire(zygote, false);
    }
  }

  /** Lets a forked session go: what is left of it is killed, and its cgroup removed. */
  release(kernel: ForkedKernel): void {
    this.#background.track(kernel.dispose());
  }

  /** Stops forking; kills the zygotes (and so the sessions still running from them). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#dropAhead();
    for (const zygote of [this.#current, ...this.#retired]) {
      if (zygote) this.#background.track(zygote.sandbox.dispose());
    }
    this.#current = undefined;
    this.#retired.clear();
    await this.#background.settled();
  }

  #expired(zygote: SessionZygote): boolean {
    return performance.now() - zygote.startedAt >= this.#settings.maxAgeMs;
  }

  /** The zygote failed a fork: it is killed (its sessions with it) and replaced after a pause. */
  #broken(zygote: SessionZygote): undefined {
    const said = zygote.sandbox.outputs[2].text().trim();
    // Paused first, so that its replacement starts after the pause rather than at once.
    this.#background.failed(
      new Error(`a session zygote did not fork a session as it should${said ? `: ${said}` : ''}`),
    );
    this.#retire(zygote, true);
    return undefined;
  }

  /**
   * A new zygote takes over from `zygote`, which is disposed of now (`kill`) or once its last session has ended.
   */
  #retire(zygote: SessionZygote, kill: boolean): void {
    const current = this.#current === zygote;
    if (current) this.#current = undefined;
    // A session forked ahead from a zygote that is only retired is still fresh: the next request takes it.
    if (kill && current) this.#dropAhead();
    if (kill || zygote.sessions.size === 0) this.#dispose(zygote);
    else this.#retired.add(zygote);
    this.#start();
  }

  #dispose(zygote: SessionZygote): void {
    this.#retired.delete(zygote);
    this.#background.track(zygote.sandbox.dispose());
  }

  #start(): void {
    if (this.#closed || this.#starting || this.#current || this.#background.paused) return;
    this.#starting = true;
    const command = zygoteCommand(this.#settings, true);
    this.#background.track(
      this.#launcher.start(command, zygoteStartOptions(true)).then(
        (sandbox) => {
          this.#starting = false;
          const pid = zygoteProcess(sandbox);
          if (pid === undefined || this.#closed) {
            this.#background.track(sandbox.dispose());
            if (pid === undefined)
              this.#background.failed(new Error('a session zygote started without its Python process'));
            return;
          }
          const zygote: SessionZygote = new SessionZygote(sandbox, pid, () => {
            // A zygote that died is replaced at once; a retired one goes once its last session has ended.
            if (zygote.gone) this.#retire(zygote, true);
            else if (this.#current !== zygote) this.#dispose(zygote);
          });
          this.#current = zygote;
          this.#forkAhead();
        },
        (error: unknown) => {
          this.#starting = false;
          this.#background.failed(error);
        },
      ),
    );
  }
}

export type { ForkedKernel };

/** The host pid of the zygote's child that the zygote knows as `pid` (in its sandbox's pid namespace). */
function hostPid(zygote: number, pid: number): number | undefined {
  for (const child of childrenOf(zygote)) {
    try {
      const line = readFileSync(`/proc/${child}/status`, 'utf8')
        .split('\n')
        .find((entry) => entry.startsWith('NSpid:'));
      if (line?.split(/\s+/)[2] === String(pid)) return child;
    } catch {
      // It ended meanwhile.
    }
  }
  return undefined;
}

/** A zygote's status (as a shell reports it: 128 + the signal) as an exit status. */
function exitStatus(status: number): ExitStatus {
  return status > 128 ? { code: null, signal: status - 128 } : { code: status, signal: null };
}
