import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { fetchFiles, resolveFetchPaths } from '../src/workdir-files';

// fetch_files read while a process of the sandbox still lives (its kill is a message to the spawner, and without
// cgroups nothing else stops it at once): a directory on the way, checked as one, may be a symlink by the open.

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('never reads through a directory swapped for a symlink between the check and the open', async () => {
  dir = mkdtempSync(join(tmpdir(), 'fusebox-fetch-race-'));
  const workdir = join(dir, 'w');
  mkdirSync(join(workdir, 'a'), { recursive: true });
  writeFileSync(join(workdir, 'a', 'x'), 'decoy');
  mkdirSync(join(dir, 'host'));
  writeFileSync(join(dir, 'host', 'x'), 'host secret');
  symlinkSync(join(dir, 'host'), join(workdir, 'link'));
  // renameat2(AT_FDCWD, "a", AT_FDCWD, "link", RENAME_EXCHANGE), as fast as it goes (x86_64).
  const swapper = spawn(
    'python3',
    [
      '-c',
      'import ctypes\nlibc = ctypes.CDLL(None)\nwhile True: libc.syscall(316, -100, b"a", -100, b"link", 2)',
    ],
    { cwd: workdir, stdio: 'ignore' },
  );
  try {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const variants = Array.from({ length: 200 }, (_, i) => `${'./'.repeat(i)}a/x`);
    // As a sandbox's working directory /tmp/w, whose /tmp is `dir`.
    const sandbox = { inside: '/tmp/w', host: workdir, tmp: dir, owner: undefined, release: () => undefined };
    const paths = resolveFetchPaths(sandbox, variants);
    const seen = new Set<string>();
    for (let round = 0; round < 10; round += 1) {
      const files = await fetchFiles(sandbox, paths, 1e9);
      for (const value of Object.values(files)) seen.add(Buffer.from(value, 'base64').toString());
    }
    // Control: the swapped path was read, as the directory it was when checked.
    expect(seen.has('decoy')).toBe(true);
    expect(seen.has('host secret')).toBe(false);
  } finally {
    swapper.kill('SIGKILL');
  }
}, 30_000);
