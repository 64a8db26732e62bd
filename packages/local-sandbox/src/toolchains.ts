import { execFile, execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmdirSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { ownDirectory } from './own-directory';
import { OWNER_PREFIX, ownerGone } from './process-owner';
import { snapshotToolchain } from './toolchain-snapshot';

/** Toolchains installed outside /usr (rustup, a Go tarball) are bound read-only at a fixed sandbox path. */
const TOOLCHAIN_ROOTS = [
  { command: 'rustc', args: ['--print', 'sysroot'], mount: '/opt/rust' },
  { command: 'go', args: ['env', 'GOROOT'], mount: '/opt/go' },
];

/** A toolchain found on the host, and where sandboxes see it. */
export interface ToolchainRoot {
  /** Where bubblewrap binds it from: the toolchain itself, or a reachable view of it (see {@link findToolchains}). */
  host: string;
  mount: string;
}

/** The toolchains of this machine, and how to undo what was done to reach them. */
export interface Toolchains {
  roots: ToolchainRoot[];
  release(): void;
}

/**
 * Finds the toolchains outside /usr, and where bubblewrap binds each from: a snapshot at a neutral path (see
 * {@link snapshotToolchain}), or, where none can be made, the toolchain itself. Sandboxes that run as other uids
 * than this (root) process cannot pass through a private directory such as /root (where rustup installs by
 * default): with `forOtherUids`, such a toolchain is then bound read-only, on the host, at a directory anyone
 * may pass through, and bubblewrap binds it from there. Views left by a Fusebox process that died are removed
 * first.
 */
export async function findToolchains({ forOtherUids }: { forOtherUids: boolean }): Promise<Toolchains> {
  const found = (await Promise.all(TOOLCHAIN_ROOTS.map(askToolchain))).filter(
    (root): root is ToolchainRoot => root !== undefined,
  );
  if (forOtherUids) removeOrphanViews();
  const views: string[] = [];
  let ownDir: string | undefined;
  const roots = found.flatMap((toolchain) => {
    const snapshot = snapshotToolchain(toolchain.host, basename(toolchain.mount));
    if (snapshot !== undefined) return [{ host: snapshot, mount: toolchain.mount }];
    // No snapshot: bound from where it lives, that path shows in the sandbox's mount table.
    if (!forOtherUids || traversable(toolchain.host)) return [toolchain];
    try {
      // One folder per launcher: several executors may live in one process.
      ownDir ??= mkdtempSync(join(viewsDir(), OWNER_PREFIX));
      chmodSync(ownDir, 0o755);
      const view = join(ownDir, toolchain.mount.slice(1).replaceAll('/', '-'));
      mkdirSync(view, { mode: 0o755 });
      views.push(view);
      execFileSync('mount', ['--bind', '-o', 'ro', toolchain.host, view], { stdio: 'pipe' });
      return [{ host: view, mount: toolchain.mount }];
    } catch {
      return [];
    }
  });
  return {
    roots,
    release: () => {
      for (const view of views) unmount(view);
      if (ownDir !== undefined) removeEmpty(ownDir);
    },
  };
}

/** Asks a toolchain outside /usr where it lives (`rustc --print sysroot`); undefined when it is absent. */
function askToolchain(toolchain: (typeof TOOLCHAIN_ROOTS)[number]): Promise<ToolchainRoot | undefined> {
  return new Promise((resolve) => {
    execFile(toolchain.command, toolchain.args, { timeout: 30_000 }, (error, stdout) => {
      const root = stdout.trim();
      // Debian's own rustc answers `/usr` itself: that is in every sandbox already, nothing to bind or copy.
      const inUsr = root === '/usr' || root.startsWith('/usr/');
      if (error || !root.startsWith('/') || inUsr || !existsSync(join(root, 'bin'))) {
        resolve(undefined);
      } else {
        resolve({ host: root, mount: toolchain.mount });
      }
    });
  });
}

/** Whether any user may pass through every directory above `path`. */
function traversable(path: string): boolean {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    if (dir === '/') return true;
  }
}

/** Where views of unreachable toolchains are mounted, one folder per launcher, named after its process. */
function viewsDir(): string {
  const dir = join(tmpdir(), 'fusebox-toolchains');
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  if (!ownDirectory(dir)) throw new Error(`${dir} is not a directory of this user that only it may write`);
  return dir;
}

/**
 * Unmounts what dead servers left. /tmp is everyone's: a directory another user made there (or a link in it) may
 * point anywhere, and `umount` follows links, so only real directories this user owns, and only it may write, are
 * walked: nobody else can have put a name in them.
 */
function removeOrphanViews(): void {
  const dir = join(tmpdir(), 'fusebox-toolchains');
  if (!existsSync(dir) || !ownDirectory(dir)) return;
  for (const name of readdirSync(dir)) {
    if (!ownerGone(name) || !ownDirectory(join(dir, name))) continue;
    for (const view of readdirSync(join(dir, name)))
      if (lstatSync(join(dir, name, view)).isDirectory()) unmount(join(dir, name, view));
    removeEmpty(join(dir, name));
  }
}

function unmount(view: string): void {
  try {
    execFileSync('umount', ['--lazy', view], { stdio: 'pipe' });
  } catch {
    // Not mounted (a start that failed half-way).
  }
  removeEmpty(view);
}

function removeEmpty(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // Not empty or already gone: nothing of ours to remove.
  }
}
