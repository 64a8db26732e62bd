import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { randomName } from './random-name';

/**
 * Where snapshots live: root's is a system directory no other user may write; any other user's is its own
 * folder in the temporary directory. Neither names a home directory or a process.
 */
function snapshotsDir(): string {
  const uid = process.getuid?.() ?? 0;
  return uid === 0 ? '/var/lib/fusebox/toolchains' : join(tmpdir(), `fusebox-${uid}-toolchains`);
}

/**
 * A copy of the toolchain at `host` (rustup's in /root, say) at a neutral host path, made of hard links, so it
 * costs directories only; undefined when it cannot be made (another file system, files this user may not link).
 *
 * Bubblewrap binds a toolchain from here rather than from where it lives because a bind mount shows its source
 * path in the sandbox's `/proc/self/mountinfo` (the root field: the path within the source file system), which
 * would tell sandboxed code the host's layout and home directories. The snapshot is named after the toolchain's
 * path and the identity of its `bin` directory, so an updated toolchain gets a fresh one, and it is built aside
 * and renamed into place, so concurrent Fusebox processes share one whole copy.
 */
export function snapshotToolchain(host: string, name: string): string | undefined {
  const bin = statSync(join(host, 'bin'));
  const key = createHash('sha256')
    .update(`${host}\0${bin.dev}\0${bin.ino}\0${bin.mtimeMs}`)
    .digest('hex')
    .slice(0, 16);
  const dir = snapshotsDir();
  const snapshot = join(dir, `${name}-${key}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    // Anyone may create names in the temporary directory: use it only if it is this user's own directory.
    const own = lstatSync(dir);
    if (!own.isDirectory() || own.uid !== (process.getuid?.() ?? 0)) return undefined;
    chmodSync(dir, 0o755);
    if (existsSync(snapshot)) return snapshot;
    const building = join(dir, randomName(`.${basename(snapshot)}-`));
    try {
      execFileSync('cp', ['--archive', '--link', '--no-target-directory', host, building], {
        stdio: 'pipe',
      });
      chmodSync(building, 0o755);
      renameSync(building, snapshot);
    } catch (error) {
      rmSync(building, { recursive: true, force: true });
      // Another process renamed its copy into place first: that one serves.
      if (!existsSync(snapshot)) throw error;
    }
    return snapshot;
  } catch {
    return undefined;
  }
}
