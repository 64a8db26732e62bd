import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Socket } from 'node:net';
import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  existsSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { CappedOutput } from './capped-output';
import { type CgroupBudget, CgroupParent, type CgroupUsage, type SandboxCgroup } from './cgroups';
import { IsolationUnavailableError } from './errors/isolation-unavailable-error';
import { FifoGate } from './fifo-gate';
import { SandboxFailureError } from './errors/sandbox-failure-error';
import { kernelInterfaceArgs } from './kernel-interfaces';
import { LineChannel } from './line-channel';
import { removeOrphanDirectories } from './orphan-directories';
import { OWNER_PREFIX } from './process-owner';
import { processTree } from './process-tree';
import { randomName } from './random-name';
import { SandboxIdentities } from './sandbox-identities';
import { type WrittenSeccompFilter, writeSeccompFilter } from './seccomp';
import { type SpawnRequest, type Spawned, Spawner } from './spawner';
import { type Toolchains, findToolchains } from './toolchains';
import { Sandbox, type SandboxOutputs, type SandboxWorkdir, releaseDirectory, releaseFd } from './sandbox';

/** `bwrap`: every sandbox gets its own namespaces. `none`: plain processes on the host, for machines without. */
export type Isolation = 'bwrap' | 'none';

export interface LauncherOptions {
  isolation: Isolation;
  /** Size of the sandbox's tmpfs (its /tmp, which holds the working directory) and its largest file. */
  diskBytes: number;
  /** Memory of all the sandbox's processes together, tmpfs included (cgroup). */
  memoryCapBytes: number;
  /** Processes and threads of the sandbox together (cgroup; the sandbox's commands set `RLIMIT_NPROC` too). */
  maxProcesses: number;
  /** Files one process of a sandbox may hold open (`RLIMIT_NOFILE`, soft and hard; see spawner.py). */
  maxOpenFiles: number;
  /** What all the sandboxes may use together (their parent cgroup). */
  budget: CgroupBudget;
  /** Each sandbox's CPU weight against the others (`cpu.shares`), and the cores it may use at most (0: all). */
  cpuShares: number;
  cpuCores: number;
  /** Bytes kept per output stream. */
  outputLimitBytes: number;
  /**
   * When this process is root: the first of the host uids sandboxes run as, one per live sandbox (see
   * {@link SandboxIdentities}). Otherwise sandboxes run as this process's own uid, in their own user namespace.
   */
  sandboxUidBase: number;
  /** Uids per lease (see {@link SandboxIdentities}): servers on one machine hold disjoint blocks of this many. */
  sandboxUidBlock?: number;
  /** Where the uid leases are kept; default /var/lib/fusebox/uid-leases. */
  sandboxUidLeaseDir?: string;
  /** Where the compiled seccomp filter is kept between starts (see seccomp-cache.ts); null: never kept. */
  seccompCacheDir?: string | null;
  /** Sandboxes starting at once; the rest wait their turn before their start timeout begins. */
  sandboxStarts: number;
  /** Where non-fatal set-up problems are reported (cgroups unavailable, isolation off). */
  warn: (message: string) => void;
}

/** How a sandbox starts: see {@link SandboxLauncher.start}. */
export interface StartOptions {
  background?: boolean;
  init?: boolean;
  zygote?: { files: Record<number, string> };
  unchecked?: boolean;
}

/** The uid and gid sandboxed code sees itself as (nobody); outside, it is an unprivileged host uid. */
const SANDBOX_ID = '65534';
/**
 * `oom_score_adj` of a sandbox that runs code: when the sandboxes together reach their memory budget, the kernel
 * kills in a run, never in a zygote (which stays at the API's own score) or anything else.
 */
const RUN_OOM_SCORE_ADJ = 1000;
/** A sandbox that is not up after this long is broken (or the machine is drowning). */
const START_TIMEOUT_MS = 30_000;
/** The CPU niceness of sandboxes started ahead of need: they yield to code that is running. */
const BACKGROUND_NICENESS = 10;
/** See {@link Sandbox}: 1-2 the driver's own output, 3 its job, 4 its events, 5-6 the compile step's output. */
const SANDBOX_FDS = [1, 2, 3, 4, 5, 6];
const CONTROL_FD = 3;
/** Beyond the output an interpreter's reply carries (two streams, base64), room for displays and tracebacks. */
const EVENT_LINE_MARGIN_BYTES = 1024 * 1024;
/** Files bubblewrap reads at set-up, passed from fd 7 on: the seccomp filter and the /etc files to copy in. */
const FIRST_SETUP_FD = 7;
/** POSIX shared memory (/dev/shm) lives in the sandbox's /tmp, so it counts against the same disk limit. */
const SHARED_MEMORY_DIR = '/tmp/.fusebox-shm';
/** Device nodes sandboxed code may use, as bubblewrap's own --dev gives them. */
const DEVICES = ['null', 'zero', 'full', 'random', 'urandom', 'tty'];

/**
 * What of /etc sandboxed code may see: the dynamic linker's cache, `alternatives` (javac, java), time zones and
 * certificates, and language runtimes' configuration. Never passwd/shadow; a root-only file inside these (such
 * as /etc/ssl/private) stays unreadable, since the sandbox's uid is never root outside it.
 */
const ETC_ENTRIES = [
  /^ld\.so\.(cache|conf|conf\.d)$/,
  /^alternatives$/,
  /^(localtime|timezone|mime\.types|nsswitch\.conf|os-release)$/,
  /^(ssl|ca-certificates|fonts|perl)$/,
  /^java-\d+-openjdk$/,
  /^python3(\.\d+)?$/,
  // Where Debian keeps the configuration of the runtime profiles' languages (docs/languages.md).
  /^(matplotlibrc|R|php|racket)$/,
];

const SYSTEM_PATH = ['/usr/local/bin', '/usr/bin', '/bin'];

/**
 * Starts sandboxes. Built once per executor: it checks that isolation works, finds the toolchains, and holds
 * what every sandbox shares (the bubblewrap mount plan, the synthetic /etc files, the parent cgroup).
 */
export class SandboxLauncher {
  readonly options: LauncherOptions;
  readonly #runtimeDir: string;
  #spawner: Spawner;
  #started = 0;
  readonly #cgroups: CgroupParent | undefined;
  readonly #identities: SandboxIdentities | undefined;
  readonly #toolchains: Toolchains;
  readonly #baseArgs: string[];
  /** What the spawner opens for bubblewrap, by fd: see {@link FIRST_SETUP_FD}. */
  readonly #setupFiles: NonNullable<SpawnRequest['opens']> = {};
  readonly #env: Record<string, string>;
  readonly #pathDirs: { inside: string; host: string }[];
  /** Settles once the seccomp filter sandboxes get is known to be this host's: see {@link WrittenSeccompFilter}. */
  #filterChecked: Promise<void> = Promise.resolve();
  /**
   * Turns to start a sandbox a request waits for. A start is CPU work (bubblewrap, an interpreter's imports);
   * dozens at once (a burst of sessions each opening an interpreter) shared two cores so thinly that some did not
   * come up within START_TIMEOUT_MS and were killed, and their requests failed.
   */
  readonly #starts: FifoGate;

  private constructor(
    options: LauncherOptions,
    runtimeDir: string,
    cgroups: CgroupParent | undefined,
    identities: SandboxIdentities | undefined,
    toolchains: Toolchains,
  ) {
    this.options = options;
    this.#spawner = new Spawner(options.maxOpenFiles);
    this.#starts = new FifoGate(options.sandboxStarts, Number.POSITIVE_INFINITY);
    this.#runtimeDir = runtimeDir;
    this.#cgroups = cgroups;
    this.#toolchains = toolchains;
    const bwrap = options.isolation === 'bwrap';
    this.#identities = identities;
    this.#pathDirs = [
      ...toolchains.roots.map((root) => ({
        inside: `${bwrap ? root.mount : root.host}/bin`,
        host: `${root.host}/bin`,
      })),
      ...SYSTEM_PATH.map((dir) => ({ inside: dir, host: dir })),
    ];
    this.#env = {
      PATH: this.#pathDirs.map((dir) => dir.inside).join(':'),
      HOME: '/tmp',
      TMPDIR: '/tmp',
      LANG: 'C.UTF-8',
    };
    this.#baseArgs = bwrap ? this.#bwrapArgs() : [];
  }

  /**
   * Prepares sandboxes and proves isolation works by starting one; throws {@link IsolationUnavailableError}
   * when bubblewrap cannot create its namespaces.
   */
  static async create(options: LauncherOptions): Promise<SandboxLauncher> {
    const cgroups =
      options.isolation === 'bwrap' || process.getuid?.() === 0
        ? CgroupParent.open(options.budget)
        : 'not root';
    if (typeof cgroups === 'string') {
      options.warn(
        `per-sandbox cgroups are unavailable (${cgroups}): FUSEBOX_EXECUTOR_MEMORY_CAP_MB does not hold. A run's memory is bounded only per process (RLIMIT_AS = memory_limit_MB, none at -1) and not at all for what its processes make the kernel hold (inodes, socket buffers); processes are capped by RLIMIT_NPROC`,
      );
    }
    removeOrphanDirectories();
    const identities =
      options.isolation === 'bwrap'
        ? SandboxIdentities.forThisProcess(options.sandboxUidBase, options.warn, {
            ...(options.sandboxUidBlock === undefined ? {} : { blockSize: options.sandboxUidBlock }),
            ...(options.sandboxUidLeaseDir === undefined ? {} : { leaseDir: options.sandboxUidLeaseDir }),
          })
        : undefined;
    const toolchains = await findToolchains({ forOtherUids: identities !== undefined });
    const runtimeDir = mkdtempSync(join(tmpdir(), `fusebox-sandbox-${OWNER_PREFIX}`));
    // Sandboxes' uids pass through it to bind their /tmp; its other entries stay root's (0600 pipes and files).
    chmodSync(runtimeDir, 0o711);
    let filterChecked: WrittenSeccompFilter['checked'] = Promise.resolve(undefined);
    if (options.isolation === 'bwrap') {
      try {
        ({ checked: filterChecked } = await writeSeccompFilter(
          join(runtimeDir, 'seccomp.bpf'),
          options.seccompCacheDir === undefined ? {} : { cacheDir: options.seccompCacheDir },
        ));
      } catch (error) {
        rmSync(runtimeDir, { recursive: true, force: true });
        toolchains.release();
        if (typeof cgroups !== 'string') cgroups.close();
        await identities?.close();
        throw new IsolationUnavailableError(
          `sandboxes cannot get their seccomp filter: ${(error as Error).message}`,
          { cause: error },
        );
      }
    }
    const launcher = new SandboxLauncher(
      options,
      runtimeDir,
      typeof cgroups === 'string' ? undefined : cgroups,
      identities,
      toolchains,
    );
    // A filter from the cache is compiled again meanwhile; no sandbox that runs code starts before that is done.
    launcher.#filterChecked = filterChecked.then((replaced) => {
      if (replaced !== undefined) options.warn(replaced);
    });
    launcher.#filterChecked.catch(() => undefined);
    if (options.isolation === 'none') {
      options.warn(
        "ISOLATION IS OFF: submitted code runs as this process's user, with its network and files",
      );
      return launcher;
    }
    try {
      // It runs no submitted code, so it need not wait for the filter's check.
      const probe = await launcher.start(['/bin/sh', '-c', 'echo ready >&4; read -r line <&3'], {
        init: true,
        unchecked: true,
      });
      await probe.dispose();
    } catch (error) {
      // A sandbox that dies at once takes its stderr with it; bubblewrap run once more, directly, says why.
      const said = await launcher.#bwrapSays();
      await launcher.close();
      throw new IsolationUnavailableError(
        `bubblewrap cannot create a sandbox here, so submitted code cannot run isolated: ${said || (error as Error).message}. ` +
          'Install it (apt-get install -y bubblewrap) and run as root or with unprivileged user namespaces enabled, ' +
          'or turn isolation off explicitly.',
        { cause: error },
      );
    }
    return launcher;
  }

  /** What bubblewrap prints when it runs `true` with the sandboxes' arguments: empty if it succeeds. */
  async #bwrapSays(): Promise<string> {
    const uid = await this.#identities?.acquire();
    const handles = Object.entries(this.#setupFiles).map(
      ([fd, path]) => [Number(fd), openSync(path, constants.O_RDONLY)] as const,
    );
    const stdio: ('ignore' | 'pipe' | number)[] = Array.from({ length: FIRST_SETUP_FD }, () => 'ignore');
    stdio[2] = 'pipe';
    for (const [fd, handle] of handles) stdio[fd] = handle;
    // Its own tmpfs, as an unprivileged bubblewrap would mount it: enough to see whether bubblewrap works here.
    const tmp = ['--size', String(this.options.diskBytes), '--tmpfs', '/tmp'];
    const [command, ...args] = asUser(uid, [
      'bwrap',
      ...this.#baseArgs,
      ...tmp,
      ...this.#sealArgs,
      '--',
      '/bin/true',
    ]);
    return new Promise<string>((resolve) => {
      const child = spawn(command as string, args, {
        // Built as a ProcessEnv: the dashboard type-checks this file under Next's, which requires NODE_ENV.
        env: Object.assign(Object.create(null) as NodeJS.ProcessEnv, this.#env),
        stdio,
        cwd: '/',
        timeout: 10_000,
      });
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', (error) => resolve(error.message));
      child.on('close', (code) =>
        resolve(code === 0 ? '' : stderr.trim() || `bubblewrap exited with ${code}`),
      );
    }).finally(() => {
      for (const [, handle] of handles) closeSync(handle);
      if (uid !== undefined) this.#identities?.release(uid);
    });
  }

  /** True when `command` (a name looked up on the sandbox's PATH, or an absolute path) can run in a sandbox. */
  has(command: string): boolean {
    return this.locate(command) !== undefined;
  }

  /** Where on the host `command` (as {@link has} looks it up) is, so this process can run it too. */
  locate(command: string): string | undefined {
    const candidates = command.startsWith('/')
      ? [command]
      : this.#pathDirs.map((dir) => join(dir.host, command));
    return candidates.find((path) => {
      try {
        accessSync(path, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
  }

  /**
   * Starts a sandbox running `command`, which must write `ready` on fd 4 once it is up, and resolves when it
   * has. Rejects with {@link SandboxFailureError} if it dies or hangs first. A `background` start runs at
   * {@link BACKGROUND_NICENESS} until {@link Sandbox.prioritise} is called. An `init` command is the sandbox's
   * pid 1 itself (bubblewrap's --as-pid-1): it reaps what the code leaves behind, and nothing inside can signal
   * it, open its memory or its fds, so what it reports on fd 4 cannot be forged by the code it runs. A `zygote`
   * sandbox runs trusted code only: see {@link zygoteSandboxArgs}; its `files` (fd → host path) are opened
   * read-only for it.
   */
  async start(command: readonly string[], options: StartOptions = {}): Promise<Sandbox> {
    // Warm-ups (a few per pool, at low priority) take no turn: waiting behind them, a request would wait for
    // the slowest starts there are.
    if (options.background) return this.#start(command, options);
    const release = await this.#starts.acquire();
    try {
      return await this.#start(command, options);
    } finally {
      release();
    }
  }

  async #start(
    command: readonly string[],
    { background = false, init = false, zygote, unchecked = false }: StartOptions,
  ): Promise<Sandbox> {
    if (!unchecked) {
      await this.#filterChecked.catch((error: unknown) => {
        throw new SandboxFailureError(
          `the cached seccomp filter could not be checked: ${(error as Error).message}`,
          { cause: error },
        );
      });
    }
    const bwrap = this.options.isolation === 'bwrap';
    if (!this.#spawner.alive) this.#spawner = new Spawner(this.options.maxOpenFiles);
    const uid = await this.#identities?.acquire();
    const cgroup = this.#cgroups?.create(this.#cgroupLimits());
    const releaseIdentity = () => {
      if (uid !== undefined) this.#identities?.release(uid);
    };
    const hostDir = bwrap ? undefined : mkdtempSync(join(tmpdir(), `fusebox-run-${OWNER_PREFIX}`));
    const inside = hostDir ?? `/tmp/${randomName()}`;
    const id = (this.#started += 1);
    const hostTmp = uid === undefined ? undefined : join(this.#runtimeDir, `tmp-${id}`);
    const releaseTmp = () => {
      if (hostTmp !== undefined) this.#spawner.unmount(hostTmp);
    };
    const fifos = Object.fromEntries(SANDBOX_FDS.map((fd) => [fd, join(this.#runtimeDir, `${id}.${fd}`)]));
    let spawned: Spawned;
    try {
      spawned = await this.#spawner.spawn({
        argv: bwrap
          ? asUser(uid, [
              'bwrap',
              ...(zygote ? zygoteSandboxArgs(this.#baseArgs) : this.#baseArgs),
              ...this.#tmpArgs(hostTmp),
              ...this.#sealArgs,
              ...(init ? ['--as-pid-1'] : []),
              '--dir',
              inside,
              '--chdir',
              inside,
              '--',
              ...command,
            ])
          : ['/usr/bin/env', '-C', inside, ...command],
        env: bwrap ? this.#env : { ...this.#env, HOME: inside, TMPDIR: inside },
        fifos,
        opens: bwrap ? { ...this.#setupFiles, ...zygote?.files } : {},
        ...(hostTmp !== undefined && uid !== undefined
          ? { tmpfs: { path: hostTmp, bytes: this.options.diskBytes, uid } }
          : {}),
        ...(cgroup && this.#cgroups
          ? { cgroups: { dirs: cgroup.directories, home: this.#cgroups.directories } }
          : {}),
        nice: background ? BACKGROUND_NICENESS : 0,
        ...(zygote ? {} : { oomScoreAdj: RUN_OOM_SCORE_ADJ }),
      });
    } catch (error) {
      for (const path of Object.values(fifos)) rmSync(path, { force: true });
      if (hostDir) rmSync(hostDir, { recursive: true, force: true });
      releaseTmp();
      await cgroup?.remove();
      releaseIdentity();
      throw error;
    }
    let pipes: Record<number, Socket>;
    try {
      pipes = openPipes(fifos);
    } catch (error) {
      spawned.kill();
      for (const path of Object.values(fifos)) rmSync(path, { force: true });
      if (hostDir) rmSync(hostDir, { recursive: true, force: true });
      await spawned.exited;
      releaseTmp();
      await cgroup?.remove();
      releaseIdentity();
      throw new SandboxFailureError(`cannot open the sandbox's pipes: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const { pid, exited } = spawned;
    const killTree = () => {
      spawned.kill();
      // Killing bubblewrap kills its init, and with it every process of the sandbox's pid namespace, unless
      // bubblewrap died before its init armed the parent-death signal (seen here about once in a few hundred
      // starts). Everything in the sandbox's cgroup is ours, so kill that too.
      cgroup?.killAll();
    };
    const outputs = captureOutputs(pipes, this.options.outputLimitBytes);
    const readers = [1, 2, 4, 5, 6].map((fd) => pipes[fd] as Socket);
    const drained = Promise.all(readers.map((reader) => once(reader, 'close').catch(() => undefined)));
    const closed = Promise.all([exited, drained]).then(([status]) => status);
    const events = this.eventChannel(pipes[4] as Socket);

    const timer = setTimeout(killTree, START_TIMEOUT_MS);
    const first = await events.next();
    clearTimeout(timer);
    const fail = async (reason: string) => {
      killTree();
      const status = await closed;
      for (const pipe of Object.values(pipes)) pipe.destroy();
      if (hostDir) rmSync(hostDir, { recursive: true, force: true });
      releaseTmp();
      await cgroup?.remove();
      releaseIdentity();
      const stderr = outputs[2].text().trim();
      return new SandboxFailureError(
        `the sandbox did not start (${reason}; exit ${status.code ?? `signal ${status.signal}`})${stderr ? `: ${stderr}` : ''}`,
      );
    };
    if (first !== 'ready')
      throw await fail(first === undefined ? 'it ended' : `it said ${JSON.stringify(first)}`);

    let workdir: SandboxWorkdir;
    if (hostDir) {
      workdir = { inside, host: hostDir, tmp: hostDir, owner: undefined, release: releaseDirectory(hostDir) };
    } else {
      try {
        // bubblewrap itself stays outside the sandbox's mount namespace; its child is inside.
        const child = processTree(pid)[1];
        if (child === undefined) throw new Error('bubblewrap has no child');
        const fd = openSync(`/proc/${child}/root${inside}`, constants.O_RDONLY | constants.O_DIRECTORY);
        workdir = {
          inside,
          host: `/proc/self/fd/${fd}`,
          tmp: `/proc/self/fd/${fd}/..`,
          owner: uid,
          release: releaseFd(fd),
        };
        // The sandbox's bind and this fd keep its tmpfs now; see spawner.py for why it leaves the spawner's table.
        releaseTmp();
      } catch (error) {
        throw await fail(`its working directory is unreachable: ${(error as Error).message}`);
      }
    }
    return new Sandbox({
      pid,
      workdir,
      events,
      outputs,
      control: pipes[3] as Socket,
      pipes: Object.values(pipes),
      closed,
      exited,
      cgroup,
      killTree,
      onDisposed: releaseIdentity,
    });
  }

  /**
   * A fresh cgroup with a sandbox's limits, for a run forked inside a zygote's sandbox (see {@link
   * SandboxCgroup.join}), so that the run's memory, processes and CPU are counted and bounded apart from its
   * zygote's; undefined without cgroups.
   */
  runCgroup(): SandboxCgroup | undefined {
    return this.#cgroups?.create(this.#cgroupLimits());
  }

  /**
   * The lines a sandboxed driver writes on its event pipe, each capped at what one reply can hold: the
   * interpreter's carries both output streams and display data, each up to the output limit.
   */
  eventChannel(stream: Readable): LineChannel {
    return new LineChannel(stream, {
      maxLineBytes: 3 * this.options.outputLimitBytes + EVENT_LINE_MARGIN_BYTES,
    });
  }

  /** What every sandbox uses together now; undefined without cgroups. */
  usage(): CgroupUsage | undefined {
    return this.#cgroups?.usage();
  }

  #cgroupLimits() {
    return {
      maxProcesses: this.options.maxProcesses,
      memoryBytes: this.options.memoryCapBytes,
      cpuShares: this.options.cpuShares,
      cpuCores: this.options.cpuCores,
    };
  }

  /** Removes what the launcher created; every sandbox must be disposed of first. */
  async close(): Promise<void> {
    this.#starts.close();
    await this.#spawner.close();
    rmSync(this.#runtimeDir, { recursive: true, force: true });
    this.#cgroups?.close();
    this.#toolchains.release();
    // Every sandbox is gone (the spawner killed and reaped what was left): its uids are free for other servers.
    await this.#identities?.close();
  }

  #bwrapArgs(): string[] {
    let nextFd = FIRST_SETUP_FD;
    const setupFd = (path: string) => {
      const fd = nextFd++;
      this.#setupFiles[fd] = path;
      return String(fd);
    };
    const files = {
      passwd: 'nobody:x:65534:65534:nobody:/tmp:/usr/sbin/nologin\n',
      group: 'nogroup:x:65534:\n',
      hosts: '127.0.0.1 localhost\n::1 localhost\n',
    };
    const seccomp = setupFd(join(this.#runtimeDir, 'seccomp.bpf'));
    // Copied in rather than bound, so no host path (and no API pid in it) shows in the sandbox's mount table.
    const synthetic = Object.entries(files).flatMap(([name, content]) => {
      const path = join(this.#runtimeDir, name);
      writeFileSync(path, content, { mode: 0o644 });
      return ['--perms', '0444', '--file', setupFd(path), `/etc/${name}`];
    });
    return [
      '--unshare-user',
      '--disable-userns',
      '--uid',
      SANDBOX_ID,
      '--gid',
      SANDBOX_ID,
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-net',
      '--unshare-cgroup-try',
      '--hostname',
      'sandbox',
      '--die-with-parent',
      '--new-session',
      '--cap-drop',
      'ALL',
      '--ro-bind',
      '/usr',
      '/usr',
      ...rootLinks(),
      ...readdirSync('/etc')
        .filter((name) => ETC_ENTRIES.some((pattern) => pattern.test(name)))
        .flatMap((name) => ['--ro-bind', `/etc/${name}`, `/etc/${name}`]),
      ...synthetic,
      ...this.#toolchains.roots.flatMap((root) => ['--ro-bind', root.host, root.mount]),
      '--proc',
      '/proc',
      ...kernelInterfaceArgs(),
      // /dev by hand rather than --dev, whose /dev/shm is a directory of an unlimited tmpfs.
      '--perms',
      '0755',
      '--size',
      '65536',
      '--tmpfs',
      '/dev',
      ...DEVICES.flatMap((name) => ['--dev-bind', `/dev/${name}`, `/dev/${name}`]),
      '--symlink',
      '/proc/self/fd',
      '/dev/fd',
      ...['stdin', 'stdout', 'stderr'].flatMap((name, fd) => [
        '--symlink',
        `/proc/self/fd/${fd}`,
        `/dev/${name}`,
      ]),
      '--symlink',
      SHARED_MEMORY_DIR,
      '/dev/shm',
      '--seccomp',
      seccomp,
    ];
  }

  /** What follows the sandbox's /tmp: the shared-memory directory in it, then every other mount read-only. */
  readonly #sealArgs = [
    '--perms',
    '1777',
    '--dir',
    SHARED_MEMORY_DIR,
    '--remount-ro',
    '/dev',
    '--remount-ro',
    '/',
  ];

  /**
   * The sandbox's /tmp (size-capped; it holds the working directory and /dev/shm): with per-sandbox uids, a
   * tmpfs the spawner mounts for that uid (see spawner.py), which this process can write the
   * request's files into; otherwise one bubblewrap mounts, which this process shares the uid of.
   */
  #tmpArgs(hostTmp: string | undefined): string[] {
    return hostTmp === undefined
      ? ['--size', String(this.options.diskBytes), '--tmpfs', '/tmp']
      : ['--bind', hostTmp, '/tmp'];
  }
}

/**
 * Moves the init of a run or session forked in a zygote's sandbox into its own cgroup (see {@link
 * SandboxLauncher.runCgroup}), and makes it, with all it forks, the OOM killer's first choice over its zygote.
 * Throws what joining the cgroup throws (the init died meanwhile, say).
 */
export async function joinRunCgroup(cgroup: SandboxCgroup | undefined, init: number): Promise<void> {
  await cgroup?.join(init);
  await writeFile(`/proc/${init}/oom_score_adj`, String(RUN_OOM_SCORE_ADJ)).catch(() => {
    // Not ours to raise (a non-root API): it keeps its zygote's score, and its cgroup still bounds it.
  });
}

/**
 * The sandbox of a Python zygote (python-zygote.py), which gives every run it forks namespaces and mounts of its
 * own: uid 0 of its user namespace (a single uid, mapped to the sandbox's unprivileged host uid), with
 * CAP_SYS_ADMIN for those namespaces and mounts and CAP_SETFCAP to map uid 0 into each run's user namespace,
 * and no seccomp filter of its own (it forbids exactly that): its fd stays open, and each run loads it before
 * the code runs, after dropping every capability. The zygote runs no code but Fusebox's.
 */
function zygoteSandboxArgs(base: readonly string[]): string[] {
  const args: string[] = [];
  for (let index = 0; index < base.length; index += 1) {
    const arg = base[index] as string;
    if (arg === '--uid' || arg === '--gid') {
      args.push(arg, '0');
      index += 1;
    } else if (arg === '--seccomp') {
      index += 1;
    } else if (arg === '--cap-drop') {
      args.push(arg, base[(index += 1)] as string, '--cap-add', 'CAP_SYS_ADMIN', '--cap-add', 'CAP_SETFCAP');
    } else if (arg !== '--disable-userns') {
      args.push(arg);
    }
  }
  return args;
}

/** `setpriv` to `uid` (and the same gid, no supplementary groups) before `argv`; `argv` itself without a uid. */
function asUser(uid: number | undefined, argv: readonly string[]): string[] {
  return uid === undefined
    ? [...argv]
    : ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--', ...argv];
}

/** Debian's /bin, /lib… are symlinks into /usr; mirror them, or bind them where they are real directories. */
function rootLinks(): string[] {
  return ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'].flatMap((name) => {
    const path = `/${name}`;
    if (!existsSync(path)) return [];
    return lstatSync(path).isSymbolicLink()
      ? ['--symlink', readlinkSync(path), path]
      : ['--ro-bind', path, path];
  });
}

/**
 * Opens this side of a new sandbox's named pipes (the spawner holds the other side open for the sandbox, so no
 * open blocks and no reader sees an early end), then removes their names: nothing else can open them.
 */
function openPipes(fifos: Record<string, string>): Record<number, Socket> {
  const pipes: Record<number, Socket> = {};
  for (const [fd, path] of Object.entries(fifos)) {
    const input = Number(fd) === CONTROL_FD;
    const handle = openSync(path, (input ? constants.O_WRONLY : constants.O_RDONLY) | constants.O_NONBLOCK);
    // Linux reports the end of a FIFO to a reader that opened it with no writer left (a sandbox that already
    // died) only after a writer has come since, so that reader would wait for ever. A writer opened and closed
    // here counts as one; while the sandbox holds its end, closing it changes nothing.
    if (!input) closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
    const pipe = new Socket({ fd: handle, readable: !input, writable: input });
    pipe.on('error', () => {});
    pipes[Number(fd)] = pipe;
    rmSync(path, { force: true });
  }
  return pipes;
}

/** Reads the outputs from the start, so nothing a process writes can block it or be lost. */
function captureOutputs(pipes: Record<number, Socket>, limit: number): SandboxOutputs {
  const outputs = {
    1: new CappedOutput(limit),
    2: new CappedOutput(limit),
    5: new CappedOutput(limit),
    6: new CappedOutput(limit),
  };
  for (const fd of [1, 2, 5, 6] as const)
    (pipes[fd] as Socket).on('data', (chunk: Buffer) => outputs[fd].push(chunk));
  return outputs;
}
