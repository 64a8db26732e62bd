import { execFileSync } from 'node:child_process';
import {
  chownSync,
  mkdirSync,
  mkdtempSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findToolchains } from '../src/toolchains';

// Hostile review of b07bd6d (a restart cleans a dead server's leftovers, only its own). A root server with
// sandbox identities unmounts every "view" under $TMPDIR/fusebox-toolchains/<dead owner>/ at start. That directory
// sits in world-writable /tmp: any local user could make it first and plant, under a name that reads as a dead
// owner's, a symlink to a host mount point; `umount` follows the link, so a restart unmounted the host's mount
// (the second test failed before toolchains.ts walked only directories of its own user). Needs root (it
// mounts); the probe uses a private TMPDIR and tmpfs mounts of its own as the "host mounts".

const root = process.getuid?.() === 0;
const NOBODY = 65534;
const namespace = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
/** A name `ownerGone` takes for a dead owner of this namespace: this pid, with a start time it never had. */
const deadOwner = (tag: string) => `${process.pid}-n${namespace}.0-${tag}`;

const isMountPoint = (path: string) => statSync(path).dev !== statSync(join(path, '..')).dev;

const scratch = mkdtempSync(join(tmpdir(), 'fusebox-h7-views-'));
const mounted: string[] = [];
afterAll(() => {
  for (const path of mounted.reverse())
    try {
      execFileSync('umount', ['--lazy', path], { stdio: 'pipe' });
    } catch {
      // already gone: what the probe is about
    }
  rmSync(scratch, { recursive: true, force: true });
});

/** Runs the start-up cleanup (and its release) as a root server with sandbox identities does, in `privateTmp`. */
async function startAndStop(privateTmp: string): Promise<void> {
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = privateTmp;
  try {
    (await findToolchains({ forOtherUids: true })).release();
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
}

/** A private $TMPDIR with a views directory owned by `owner`, and a tmpfs mounted at `<name>` under `at`. */
function setUp(name: string, owner: number) {
  const privateTmp = join(scratch, name);
  mkdirSync(privateTmp, { mode: 0o1777 });
  const views = join(privateTmp, 'fusebox-toolchains');
  mkdirSync(views, { mode: 0o755 });
  chownSync(views, owner, owner);
  const mountAt = (path: string) => {
    mkdirSync(path, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'none', path]);
    mounted.push(path);
    expect(isMountPoint(path)).toBe(true);
    return path;
  };
  return { privateTmp, views, mountAt };
}

describe.runIf(root)('a restart’s cleanup of toolchain views', () => {
  it('unmounts and removes a view a dead server of this user left (the control)', async () => {
    const { privateTmp, views, mountAt } = setUp('own', 0);
    const view = mountAt(join(views, deadOwner('left'), 'opt-go'));
    await startAndStop(privateTmp);
    expect(() => statSync(view)).toThrow();
  });

  it('never follows a link another user planted to a host mount point', async () => {
    // The attacker (another local user) makes the views directory before any server does.
    const { privateTmp, views, mountAt } = setUp('planted', NOBODY);
    const victim = mountAt(join(scratch, 'victim'));
    writeFileSync(join(victim, 'data'), 'host data');
    const planted = join(views, deadOwner('planted'));
    mkdirSync(planted);
    symlinkSync(victim, join(planted, 'opt-rust'));
    chownSync(planted, NOBODY, NOBODY);
    // A whole owner directory that is a link too: its listing would be the target's mounts.
    symlinkSync(scratch, join(views, deadOwner('linked')));
    await startAndStop(privateTmp);
    expect(isMountPoint(victim)).toBe(true);
  });
});
