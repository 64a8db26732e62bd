import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readCachedFilter, seccompFilterKey, storeCachedFilter } from '../src/seccomp-cache';

const CACHE_MODULE = fileURLToPath(new URL('../src/seccomp-cache.ts', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'fusebox-seccomp-races-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Two filters of different lengths, each filled with one byte, so a torn or mixed read shows. */
const SHORT = Buffer.alloc(8 * 10, 0x41);
const LONG = Buffer.alloc(8 * 400, 0x42);

describe('the seccomp filter cache under a concurrent server', () => {
  it('never hands out a torn filter while another process keeps replacing it', async () => {
    const dir = join(scratch, 'cache');
    const key = 'k'.repeat(64);
    storeCachedFilter(dir, key, SHORT);
    // Control: what was stored is read back whole, so an undefined below would mean a refused, not a torn, read.
    expect(readCachedFilter(dir, key)).toEqual(SHORT);
    const writer = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `import(${JSON.stringify(CACHE_MODULE)}).then(({ storeCachedFilter }) => {
          const filters = [Buffer.alloc(80, 0x41), Buffer.alloc(3200, 0x42)];
          for (let i = 0; i < 3000; i++) storeCachedFilter(${JSON.stringify(dir)}, ${JSON.stringify(key)}, filters[i % 2]);
        });`,
      ],
      { stdio: 'ignore' },
    );
    const seen = { short: 0, long: 0, refused: 0, other: 0 };
    const exited = once(writer, 'exit');
    let running = true;
    void exited.then(() => (running = false));
    while (running) {
      const filter = readCachedFilter(dir, key);
      if (filter?.equals(SHORT)) seen.short += 1;
      else if (filter?.equals(LONG)) seen.long += 1;
      // Refused (a file replaced after it was opened has no name left): safe, the start compiles a fresh one.
      else if (filter === undefined) seen.refused += 1;
      else seen.other += 1;
      await new Promise((resolve) => setImmediate(resolve));
    }
    const [code] = (await exited) as [number | null, NodeJS.Signals | null];
    expect(code).toBe(0);
    expect(seen.other, JSON.stringify(seen)).toBe(0);
    expect(seen.short + seen.long).toBeGreaterThan(0);
    // Every file written aside was renamed into place: none is left to fill the directory.
    expect(readdirSync(dir)).toEqual([`${key}.bpf`]);
  });

  it('is keyed by the generator: a changed generator never gets the old filter', () => {
    const key = seccompFilterKey('generator one');
    // Control: this host names its packages (Debian's dpkg), so a key exists at all.
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(seccompFilterKey('generator one')).toBe(key);
    expect(seccompFilterKey('generator two')).not.toBe(key);
  });

  it('is keyed by the places a library or binding can come from outside dpkg', () => {
    const local = join(scratch, 'dist-packages');
    mkdirSync(local);
    const before = seccompFilterKey('generator', [local]);
    expect(seccompFilterKey('generator', [local])).toBe(before);
    // A pip install of a `seccomp` binding there, which python3 -I would import before Debian's.
    mkdirSync(join(local, 'seccomp'));
    utimesSync(local, new Date(), new Date(Date.now() + 5_000));
    const afterInstall = seccompFilterKey('generator', [local]);
    expect(afterInstall).not.toBe(before);
    rmSync(local, { recursive: true });
    expect(seccompFilterKey('generator', [local])).not.toBe(afterInstall);
  });
});
