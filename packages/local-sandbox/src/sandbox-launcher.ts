import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { Socket } from 'node:net';
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CappedOutput } from './capped-output';
import { CgroupParent } from './cgroups';
import { IsolationUnavailableError } from './errors/isolation-unavailable-error';
import { SandboxFailureError } from './errors/sandbox-failure-error';
import { LineChannel } from './line-channel';
import { isAlive } from './process-alive';
import { randomName } from './random-name';
import { type Spawned, Spawner } from './spawner';
import { Sandbox, type SandboxOutputs, type SandboxWorkdir, releaseDirectory, releaseFd } from './sandbox';

/** `bwrap`: every sandbox gets its own namespaces. `none`: plain processes on the host, for machines without. */
export type Isolation = 'bwrap' | 'none';

export interface LauncherOptions {
  isolation: Isolation;
  /** Size of the sandbox's tmpfs (its /tmp, which holds the working directory) and its largest file. */
  diskBytes: number;
  /** Memory of all the sandbox's processes together, tmpfs included (cgroup). */
  memoryCapBytes: number;
  /** Processes and threads of the sandbox together (cgroup). */
  maxProcesses: number;
  /** Bytes kept per output stream. */
  outputLimitBytes: number;
  /** Where non-fatal set-up problems are reported (cgroups unavailable, isolation off). */
  warn: (message: string) => void;
}

/** The uid and gid sandboxed code runs as (nobody). */
const SANDBOX_ID = '65534';
/** A sandbox that is not up after this long is broken (or the machine is drowning). */
const START_TIMEOUT_MS = 30_000;
/** The CPU niceness of sandboxes started ahead of need: they yield to code that is running. */
const BACKGROUND_NICENESS = 10;
/** See {@link Sandbox}: 1-2 the driver's own output, 3 its job, 4 its events, 5-6 the compile step's output. */
const SANDBOX_FDS = [1, 2, 3, 4, 5, 6];
const CONTROL_FD = 3;

/**
 * What of /etc sandboxed code may see: the dynamic linker's cache, `alternatives` (javac, java), time zones and
 * certificates, and language runtimes' configuration. Never passwd/shadow: the sandbox's uid is root outside
 * it, so any root-owned file bound in would be readable.
 */
const ETC_ENTRIES = [
  /^ld\.so\.(cache|conf|conf\.d)$/,
  /^alternatives$/,
  /^(localtime|timezone|mime\.types|nsswitch\.conf|os-release)$/,
  /^(ssl|ca-certificates|fonts|perl)$/,
  /^java-\d+-openjdk$/,
  /^python3(\.\d+)?$/,
];

/** Toolchains installed outside /usr (rustup, a Go tarball) are bound read-only at a fixed sandbox path. */
const TOOLCHAIN_ROOTS = [
  { command: 'rustc', args: ['--print', 'sysroot'], mount: '/opt/rust' },
  { command: 'go', args: ['env', 'GOROOT'], mount: '/opt/go' },
];

const SYSTEM_PATH = ['/usr/local/bin', '/usr/bin', '/bin'];

interface ToolchainRoot {
  host: string;
  mount: string;
}

/**
 * Starts sandboxes. Built once per executor: it checks that isolation works, finds the toolchains, and holds
 * what every sandbox shares (the bubblewrap mount plan, the synthetic /etc files, the parent cgroup).
 */
export class SandboxLauncher {
  readonly options: LauncherOptions;
  readonly #runtimeDir: string;
  #spawner = new Spawner();
  #started = 0;
  readonly #cgroups: CgroupParent | undefined;
  readonly #toolchains: ToolchainRoot[];
  readonly #baseArgs: string[];
  readonly #env: Record<string, string>;
  readonly #pathDirs: { inside: string; host: string }[];

  private constructor(
    options: LauncherOptions,
    cgroups: CgroupParent | undefined,
    toolchains: ToolchainRoot[],
  ) {
    this.options = options;
    this.#cgroups = cgroups;
    this.#toolchains = toolchains;
    this.#runtimeDir = mkdtempSync(join(tmpdir(), `fusebox-sandbox-${process.pid}-`));
    const bwrap = options.isolation === 'bwrap';
    this.#pathDirs = [
      ...toolchains.map((root) => ({
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
      options.isolation === 'bwrap' || process.getuid?.() === 0 ? CgroupParent.open() : 'not root';
    if (typeof cgroups === 'string') {
      options.warn(
        `per-sandbox cgroups are unavailable (${cgroups}): fork bombs and the total memory of a run are not contained`,
      );
    }
    removeOrphanDirectories();
    const toolchains = (await Promise.all(TOOLCHAIN_ROOTS.map(findToolchainRoot))).filter(
      (root): root is ToolchainRoot => root !== undefined,
    );
    const launcher = new SandboxLauncher(
      options,
      typeof cgroups === 'string' ? undefined : cgroups,
      toolchains,
    );
    if (options.isolation === 'none') {
      options.warn(
        "ISOLATION IS OFF: submitted code runs as this process's user, with its network and files",
      );
      return launcher;
    }
    try {
      const probe = await launcher.start(['/bin/sh', '-c', 'echo ready >&4; read -r line <&3']);
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
  #bwrapSays(): Promise<string> {
    return new Promise((resolve) => {
      execFile(
        'bwrap',
        [...this.#baseArgs, '--', '/bin/true'],
        // Built as a ProcessEnv: the dashboard type-checks this file under Next's, which requires NODE_ENV.
        { env: Object.assign(Object.create(null) as NodeJS.ProcessEnv, this.#env), timeout: 10_000 },
        (error, _stdout, stderr) => resolve(error ? stderr.trim() || error.message : ''),
      );
    });
  }

  /** True when `command` (a name looked up on the sandbox's PATH, or an absolute path) can run in a sandbox. */
  has(command: string): boolean {
    const candidates = command.startsWith('/')
      ? [command]
      : this.#pathDirs.map((dir) => join(dir.host, command));
    return candidates.some((path) => {
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
   * {@link BACKGROUND_NICENESS} until {@link Sandbox.prioritise} is called.
   */
  async start(
    command: readonly string[],
    { background = false }: { background?: boolean } = {},
  ): Promise<Sandbox> {
    const bwrap = this.options.isolation === 'bwrap';
    if (!this.#spawner.alive) this.#spawner = new Spawner();
    const cgroup = this.#cgroups?.create({
      maxProcesses: this.options.maxProcesses,
      memoryBytes: this.options.memoryCapBytes,
    });
    const hostDir = bwrap ? undefined : mkdtempSync(join(tmpdir(), `fusebox-run-${process.pid}-`));
    const inside = hostDir ?? `/tmp/${randomName()}`;
    const id = (this.#started += 1);
    const fifos = Object.fromEntries(SANDBOX_FDS.map((fd) => [fd, join(this.#runtimeDir, `${id}.${fd}`)]));
    let spawned: Spawned;
    try {
      spawned = await this.#spawner.spawn({
        argv: bwrap
          ? ['bwrap', ...this.#baseArgs, '--dir', inside, '--chdir', inside, '--', ...command]
          : ['/usr/bin/env', '-C', inside, ...command],
        env: bwrap ? this.#env : { ...this.#env, HOME: inside, TMPDIR: inside },
        fifos,
        nice: background ? BACKGROUND_NICENESS : 0,
      });
    } catch (error) {
      for (const path of Object.values(fifos)) rmSync(path, { force: true });
      if (hostDir) rmSync(hostDir, { recursive: true, force: true });
      await cgroup?.remove();
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
      await cgroup?.remove();
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
    const events = new LineChannel(pipes[4] as Socket);

    const timer = setTimeout(killTree, START_TIMEOUT_MS);
    const first = await events.next();
    clearTimeout(timer);
    const fail = async (reason: string) => {
      killTree();
      const status = await closed;
      for (const pipe of Object.values(pipes)) pipe.destroy();
      if (hostDir) rmSync(hostDir, { recursive: true, force: true });
      await cgroup?.remove();
      const stderr = outputs[2].text().trim();
      return new SandboxFailureError(
        `the sandbox did not start (${reason}; exit ${status.code ?? `signal ${status.signal}`})${stderr ? `: ${stderr}` : ''}`,
      );
    };
    if (first !== 'ready')
      throw await fail(first === undefined ? 'it ended' : `it said ${JSON.stringify(first)}`);

    // Only our own code has run so far, and the driver forks nothing more until its job arrives: moving the
    // processes now puts everything the submitted code will ever fork under the cgroup's limits.
    const processes = processTree(pid);
    try {
      cgroup?.adopt(processes);
    } catch (error) {
      throw await fail(`it could not join its cgroup: ${(error as Error).message}`);
    }
    let workdir: SandboxWorkdir;
    if (hostDir) {
      workdir = { inside, host: hostDir, tmp: hostDir, release: releaseDirectory(hostDir) };
    } else {
      try {
        // bubblewrap itself stays outside the sandbox's mount namespace; its child is inside.
        const init = processes[1];
        if (init === undefined) throw new Error('bubblewrap has no child');
        const fd = openSync(`/proc/${init}/root${inside}`, constants.O_RDONLY | constants.O_DIRECTORY);
        workdir = {
          inside,
          host: `/proc/self/fd/${fd}`,
          tmp: `/proc/self/fd/${fd}/..`,
          release: releaseFd(fd),
        };
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
    });
  }

  /** Removes what the launcher created; every sandbox must be disposed of first. */
  async close(): Promise<void> {
    await this.#spawner.close();
    rmSync(this.#runtimeDir, { recursive: true, force: true });
    this.#cgroups?.close();
  }

  #bwrapArgs(): string[] {
    const files = {
      passwd: 'nobody:x:65534:65534:nobody:/tmp:/usr/sbin/nologin\n',
      group: 'nogroup:x:65534:\n',
      hosts: '127.0.0.1 localhost\n::1 localhost\n',
    };
    const synthetic = Object.entries(files).flatMap(([name, content]) => {
      const path = join(this.#runtimeDir, name);
      writeFileSync(path, content, { mode: 0o644 });
      return ['--ro-bind', path, `/etc/${name}`];
    });
    return [
      '--unshare-user',
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
      ...this.#toolchains.flatMap((root) => ['--ro-bind', root.host, root.mount]),
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      '--size',
      String(this.options.diskBytes),
      '--tmpfs',
      '/tmp',
      '--remount-ro',
      '/',
    ];
  }
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

/** Asks a toolchain outside /usr where it lives (`rustc --print sysroot`); undefined when it is absent. */
function findToolchainRoot(toolchain: (typeof TOOLCHAIN_ROOTS)[number]): Promise<ToolchainRoot | undefined> {
  return new Promise((resolve) => {
    execFile(toolchain.command, toolchain.args, { timeout: 30_000 }, (error, stdout) => {
      const root = stdout.trim();
      if (error || !root.startsWith('/') || root.startsWith('/usr/') || !existsSync(join(root, 'bin'))) {
        resolve(undefined);
      } else {
        resolve({ host: root, mount: toolchain.mount });
      }
    });
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

/** Removes the temporary directories of executors whose process died without cleaning up. */
function removeOrphanDirectories(): void {
  for (const name of readdirSync(tmpdir())) {
    const pid = /^fusebox-(?:sandbox|run)-(\d+)-/.exec(name)?.[1];
    if (pid !== undefined && !isAlive(Number(pid)))
      rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
}

/** `pid` and its descendants, parents first, from /proc's children lists. */
function processTree(pid: number): number[] {
  const tree = [pid];
  for (let index = 0; index < tree.length; index += 1) {
    try {
      const children = readFileSync(`/proc/${tree[index]}/task/${tree[index]}/children`, 'utf8');
      tree.push(...children.split(' ').filter(Boolean).map(Number));
    } catch {
      // It exited meanwhile.
    }
  }
  return tree;
}
