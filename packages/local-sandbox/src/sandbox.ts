import { closeSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { setPriority } from 'node:os';
import type { CappedOutput } from './capped-output';
import type { SandboxCgroup, StarvationCounters } from './cgroups';
import type { CpuSample } from './cpu-starvation';
import type { LineChannel } from './line-channel';
import type { ExitStatus } from './spawner';

/** How long a killed sandbox may take to close its pipes before they are closed from this side. */
const CLOSE_DEADLINE_MS = 5_000;

/** Where the working directory is, inside the sandbox and from the host, and how to let it go. */
export interface SandboxWorkdir {
  /** The working directory as sandboxed code sees it, e.g. /tmp/tmpk3j_x9qa. */
  inside: string;
  /**
   * The same directory from this process: `/proc/self/fd/N` for a bubblewrap sandbox (an open directory fd that
   * keeps its tmpfs alive after the sandbox ends, so files can still be fetched), or a host directory.
   */
  host: string;
  /** The sandbox's TMPDIR from this process (the tmpfs root holding the working directory, or the host directory). */
  tmp: string;
  /** The host uid sandboxed code runs as, when it is not this process's: files written for it are given to it. */
  owner: number | undefined;
  release(): void;
}

/** What the sandbox's processes wrote, by fd: 1-2 the driver (diagnostics), 5-6 the compile step. */
export type SandboxOutputs = Record<1 | 2 | 5 | 6, CappedOutput>;

/**
 * One live sandbox: a bubblewrap instance (or, with isolation off, a plain process group) running a driver
 * that announced itself ready on the event pipe. File descriptors: 0 /dev/null, 1-2 the driver's own output,
 * 3 its control input, 4 its events, 5-6 the compile step's stdout and stderr.
 */
export class Sandbox {
  readonly pid: number;
  readonly workdir: SandboxWorkdir;
  readonly events: LineChannel;
  readonly outputs: SandboxOutputs;
  /** The driver's control input (fd 3). */
  readonly control: Socket;
  /** Resolves once the process has exited and every pipe it wrote to is drained. */
  readonly closed: Promise<ExitStatus>;
  readonly #cgroup: SandboxCgroup | undefined;
  readonly #killTree: () => void;
  readonly #pipes: Socket[];
  readonly #onDisposed: () => void;
  #exited = false;
  #disposed: Promise<void> | undefined;

  constructor(init: {
    pid: number;
    workdir: SandboxWorkdir;
    events: LineChannel;
    outputs: SandboxOutputs;
    control: Socket;
    pipes: Socket[];
    closed: Promise<ExitStatus>;
    exited: Promise<ExitStatus>;
    cgroup: SandboxCgroup | undefined;
    killTree: () => void;
    /** Called once every process of the sandbox is gone and its cgroup removed (its uid may be reused). */
    onDisposed: () => void;
  }) {
    this.pid = init.pid;
    this.workdir = init.workdir;
    this.events = init.events;
    this.outputs = init.outputs;
    this.control = init.control;
    this.#pipes = init.pipes;
    this.closed = init.closed;
    this.#cgroup = init.cgroup;
    this.#killTree = init.killTree;
    this.#onDisposed = init.onDisposed;
    void init.exited.then(() => (this.#exited = true));
  }

  /** False once its outermost process has exited. */
  get alive(): boolean {
    return !this.#exited;
  }

  /** Gives the sandbox's processes (and so whatever they fork) normal CPU priority. */
  prioritise(): void {
    for (const pid of this.#cgroup?.processes() ?? [this.pid]) setNiceness(pid, 0);
  }

  /** See {@link SandboxCgroup.starvedBySharedBudget}; undefined without cgroups. */
  starvedBySharedBudget(since?: StarvationCounters): string | undefined {
    return this.#cgroup?.starvedBySharedBudget(since);
  }

  /** See {@link SandboxCgroup.cpuSample}; undefined without cgroups. */
  cpuSample(): CpuSample | undefined {
    return this.#cgroup?.cpuSample();
  }

  /** See {@link SandboxCgroup.starvationCounters}; undefined without cgroups. */
  starvationCounters(): StarvationCounters | undefined {
    return this.#cgroup?.starvationCounters();
  }

  /** Kills every process of the sandbox at once; safe to call any number of times. */
  kill(): void {
    this.#killTree();
  }

  /** Kills what is left, then removes the working directory and the cgroup. */
  dispose(): Promise<void> {
    this.#disposed ??= (async () => {
      this.kill();
      const timer = setTimeout(() => {
        // Something outside the sandbox's cgroup still holds a pipe (isolation off, no cgroups): stop waiting.
        this.kill();
        for (const pipe of this.#pipes) pipe.destroy();
      }, CLOSE_DEADLINE_MS);
      await this.closed;
      clearTimeout(timer);
      for (const pipe of this.#pipes) pipe.destroy();
      this.workdir.release();
      await this.#cgroup?.remove();
      this.#onDisposed();
    })();
    return this.#disposed;
  }
}

/** Sets a process's CPU niceness; a process that is already gone is ignored. */
export function setNiceness(pid: number, niceness: number): void {
  try {
    setPriority(pid, niceness);
  } catch {
    // It exited; its sandbox's job will report that.
  }
}

/** Releases a bubblewrap working directory: closing the last fd on its tmpfs frees it. */
export function releaseFd(fd: number): () => void {
  let open = true;
  return () => {
    if (open) closeSync(fd);
    open = false;
  };
}

/** Releases a host working directory (isolation off) by deleting it; symlinks inside are removed, not followed. */
export function releaseDirectory(dir: string): () => void {
  return () => rmSync(dir, { recursive: true, force: true });
}
