import { spawn } from 'node:child_process';
import {
  chownSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeOrphanDirectories } from '../src/orphan-directories';

const NOBODY = 65534;
const namespace = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
/** A name `ownerGone` takes for a dead owner of this namespace: this pid, with a start time it never had. */
const deadOwner = (tag: string) => `${process.pid}-n${namespace}.0-${tag}`;

const scratch = mkdtempSync(join(tmpdir(), 'fusebox-orphans-hostile-'));
const privateTmp = join(scratch, 'tmp');
const victim = join(scratch, 'victim');
const savedTmp = process.env.TMPDIR;
beforeAll(() => {
  mkdirSync(privateTmp, { mode: 0o1777 });
  mkdirSync(join(victim, 'sub'), { recursive: true });
  writeFileSync(join(victim, 'data'), 'host data');
  writeFileSync(join(victim, 'sub', 'data'), 'host data');
  process.env.TMPDIR = privateTmp;
});
afterAll(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  rmSync(scratch, { recursive: true, force: true });
});

/** A dead executor's own directory (root, 0700) with a `work` directory the sandbox uid owns. */
function leftover(tag: string): { path: string; work: string } {
  const path = join(privateTmp, `fusebox-run-${deadOwner(tag)}`);
  const work = join(path, 'work');
  mkdirSync(work, { recursive: true, mode: 0o700 });
  chownSync(work, NOBODY, NOBODY);
  return { path, work };
}

function victimIntact(): void {
  expect(readFileSync(join(victim, 'data'), 'utf8')).toBe('host data');
  expect(readFileSync(join(victim, 'sub', 'data'), 'utf8')).toBe('host data');
}

describe.runIf(process.getuid?.() === 0)('what a sandbox uid leaves inside an orphan directory', () => {
  it('links and hard links inside are removed, never what they point at', () => {
    const { path, work } = leftover('links');
    symlinkSync(victim, join(work, 'dir-link'));
    symlinkSync(join(victim, 'data'), join(work, 'file-link'));
    linkSync(join(victim, 'data'), join(work, 'hard-link'));
    removeOrphanDirectories();
    expect(existsSync(path)).toBe(false); // the control: the leftover went, links and all
    victimIntact();
  });

  it('a directory swapped for a link while the removal runs never takes the target with it', async () => {
    // The sandbox uid, still inside its work directory, flips `d` between a real directory and a link to the
    // victim as fast as it can while start-up removes the leftover around it.
    const flips = `
import os, time
end = time.time() + 4
while time.time() < end:
    try:
        os.mkdir('d'); open('d/f', 'w').close(); os.mkdir('d/e'); open('d/e/f', 'w').close()
        os.rename('d', 'x'); os.symlink(${JSON.stringify(victim)}, 'd')
        os.unlink('d'); os.rename('x', 'd')
        os.unlink('d/e/f'); os.rmdir('d/e'); os.unlink('d/f'); os.rmdir('d')
    except OSError:
        pass
`;
    for (let round = 0; round < 8; round += 1) {
      const { path, work } = leftover(`race-${round}`);
      const attacker = spawn('python3', ['-c', flips], {
        cwd: work,
        uid: NOBODY,
        gid: NOBODY,
        stdio: 'ignore',
      });
      await new Promise((settle) => setTimeout(settle, 100));
      for (let pass = 0; pass < 5 && existsSync(path); pass += 1) removeOrphanDirectories();
      attacker.kill('SIGKILL');
      await new Promise((settle) => attacker.once('exit', settle));
      removeOrphanDirectories();
      expect(existsSync(path)).toBe(false);
      victimIntact();
    }
  }, 20_000);
});
