import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const CACHE_MODULE = fileURLToPath(new URL('../src/seccomp-cache.ts', import.meta.url));
/** tsx by its file: the child's working directory is outside this checkout, where `tsx` alone is not found. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const scratch = mkdtempSync(join(tmpdir(), 'fusebox-seccomp-relative-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const KEY = 'r'.repeat(64);
const PLANTED = Buffer.alloc(16, 0x50);

/**
 * What a process started in `cwd` reads from the cache at the relative path `cache` (TMPDIR=tmp gives such a
 * path): "planted" or "refused". Its own process, as a relative path resolves against the working directory.
 */
function readFrom(cwd: string): string {
  const script = `import(${JSON.stringify(CACHE_MODULE)}).then(({ readCachedFilter }) =>
    console.log(readCachedFilter('cache', ${JSON.stringify(KEY)}) ? 'planted' : 'refused'));`;
  return execFileSync(process.execPath, ['--import', TSX, '-e', script], { cwd, encoding: 'utf8' }).trim();
}

/** `parent`/me/cache holding a filter: `parent` of the given mode, the rest this user's own and private. */
function layout(name: string, parentMode: number): string {
  const parent = join(scratch, name);
  mkdirSync(join(parent, 'me', 'cache'), { recursive: true, mode: 0o700 });
  chmodSync(parent, parentMode);
  writeFileSync(join(parent, 'me', 'cache', `${KEY}.bpf`), PLANTED, { mode: 0o600 });
  return join(parent, 'me');
}

describe('a cache directory named by a relative path', () => {
  it('is trusted only if every directory above the working directory is, too', () => {
    // Control: under a parent only its owner may change, the same cache is read.
    expect(readFrom(layout('private', 0o755))).toBe('planted');
    // Anyone may rename `me` out of a world-writable, non-sticky parent and put another tree in its place.
    expect(readFrom(layout('shared', 0o777))).toBe('refused');
  });
});
