import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeOrphanDirectories } from '../src/orphan-directories';
import { OWNER_PREFIX } from '../src/process-owner';

const NOBODY = 65534;
const namespace = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
/** A name `ownerGone` takes for a dead owner of this namespace: this pid, with a start time it never had. */
const deadOwner = (tag: string) => `${process.pid}-n${namespace}.0-${tag}`;

const scratch = mkdtempSync(join(tmpdir(), 'fusebox-orphans-'));
const privateTmp = join(scratch, 'tmp');
const savedTmp = process.env.TMPDIR;
beforeAll(() => {
  mkdirSync(privateTmp, { mode: 0o1777 });
  process.env.TMPDIR = privateTmp;
});
afterAll(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  rmSync(scratch, { recursive: true, force: true });
});

/** A directory under the private /tmp with a file two levels down. */
function leftover(name: string, mode = 0o700): string {
  const path = join(privateTmp, name);
  mkdirSync(join(path, 'work'), { recursive: true, mode });
  writeFileSync(join(path, 'work', 'file'), 'x');
  return path;
}

describe('removing a dead executor’s temporary directories', () => {
  it('removes this user’s directories of a dead owner, whole (the control)', () => {
    const sandbox = leftover(`fusebox-sandbox-${deadOwner('a')}`);
    const run = leftover(`fusebox-run-${deadOwner('b')}`);
    removeOrphanDirectories();
    expect(existsSync(sandbox)).toBe(false);
    expect(existsSync(run)).toBe(false);
  });

  it('keeps a live owner’s directory and names that are not an executor’s', () => {
    const live = leftover(`fusebox-sandbox-${OWNER_PREFIX}live`);
    const other = leftover(`something-${deadOwner('c')}`);
    removeOrphanDirectories();
    expect(existsSync(join(live, 'work', 'file'))).toBe(true);
    expect(existsSync(join(other, 'work', 'file'))).toBe(true);
  });

  it('never removes through a link, nor a directory others may write in', () => {
    const victim = join(scratch, 'victim');
    mkdirSync(victim);
    writeFileSync(join(victim, 'data'), 'host data');
    symlinkSync(victim, join(privateTmp, `fusebox-sandbox-${deadOwner('link')}`));
    const shared = leftover(`fusebox-run-${deadOwner('shared')}`);
    chmodSync(shared, 0o777);
    removeOrphanDirectories();
    expect(existsSync(join(victim, 'data'))).toBe(true);
    expect(existsSync(join(shared, 'work', 'file'))).toBe(true);
  });

  it.runIf(process.getuid?.() === 0)(
    'never removes a directory another user made under a dead owner’s name',
    () => {
      const planted = leftover(`fusebox-sandbox-${deadOwner('planted')}`);
      chownSync(planted, NOBODY, NOBODY);
      removeOrphanDirectories();
      expect(existsSync(join(planted, 'work', 'file'))).toBe(true);
    },
  );
});
