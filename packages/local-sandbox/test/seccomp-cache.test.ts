import {
  chmodSync,
  chownSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { writeSeccompFilter } from '../src/seccomp';

const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
/** Two BPF instructions that are not the filter: what an attacker would plant (here: a harmless marker). */
const PLANTED = Buffer.from('plantedfilter!!!');

const scratch = mkdtempSync(join(tmpdir(), 'fusebox-seccomp-cache-'));
let genuine: Buffer;
let runs = 0;

/** Writes the filter as a start would, with `cacheDir`, and returns what the sandboxes would get. */
async function filterFrom(cacheDir: string): Promise<Buffer> {
  const out = join(scratch, `out-${(runs += 1)}.bpf`);
  await writeSeccompFilter(out, { cacheDir });
  return readFileSync(out);
}

/** The name the cache keeps this host's filter under, learnt from a first start with an empty cache. */
let cachedName: string;

beforeAll(async () => {
  const out = join(scratch, 'genuine.bpf');
  await writeSeccompFilter(out, { cacheDir: null });
  genuine = readFileSync(out);
  const probe = join(scratch, 'probe');
  await filterFrom(probe);
  const names = readdirSync(probe);
  expect(names).toHaveLength(1);
  cachedName = names[0]!;
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the cached seccomp filter', () => {
  let cache: string;
  beforeEach(() => {
    cache = join(scratch, `cache-${(runs += 1)}`);
  });

  it('is compiled once, kept by name of its inputs, and then served from the cache', async () => {
    expect(await filterFrom(cache)).toEqual(genuine);
    expect(readdirSync(cache)).toEqual([cachedName]);
    expect(readFileSync(join(cache, cachedName))).toEqual(genuine);
    // Only the owner could have changed it: a start takes what is there, without compiling.
    writeFileSync(join(cache, cachedName), PLANTED, { mode: 0o600 });
    expect(await filterFrom(cache)).toEqual(PLANTED);
  });

  it('leaves a directory it creates above the cache passable (toolchain snapshots share it)', async () => {
    const parent = join(scratch, `parent-${runs}`);
    expect(await filterFrom(join(parent, 'seccomp'))).toEqual(genuine);
    expect(statSync(parent).mode & 0o777).toBe(0o755);
    expect(statSync(join(parent, 'seccomp')).mode & 0o777).toBe(0o700);
  });

  it('is never taken through a link, and the link is replaced, its target untouched', async () => {
    mkdirSync(cache, { mode: 0o700 });
    const elsewhere = join(scratch, `elsewhere-${runs}`);
    writeFileSync(elsewhere, PLANTED, { mode: 0o600 });
    symlinkSync(elsewhere, join(cache, cachedName));
    expect(await filterFrom(cache)).toEqual(genuine);
    expect(readFileSync(join(cache, cachedName))).toEqual(genuine);
    expect(readFileSync(elsewhere)).toEqual(PLANTED);
  });

  it('is never taken from a file with a second name (a hard link)', async () => {
    mkdirSync(cache, { mode: 0o700 });
    writeFileSync(join(cache, cachedName), PLANTED, { mode: 0o600 });
    linkSync(join(cache, cachedName), join(scratch, `hard-link-${runs}`));
    expect(await filterFrom(cache)).toEqual(genuine);
  });

  it('is never taken from a file others may write, and is rebuilt', async () => {
    mkdirSync(cache, { mode: 0o700 });
    writeFileSync(join(cache, cachedName), PLANTED);
    chmodSync(join(cache, cachedName), 0o666);
    expect(await filterFrom(cache)).toEqual(genuine);
    expect(readFileSync(join(cache, cachedName))).toEqual(genuine);
  });

  it('is never taken from a file of an implausible size', async () => {
    mkdirSync(cache, { mode: 0o700 });
    writeFileSync(join(cache, cachedName), 'not bpf', { mode: 0o600 });
    expect(await filterFrom(cache)).toEqual(genuine);
  });

  it.runIf(asRoot)('is never taken from a file another user owns', async () => {
    mkdirSync(cache, { mode: 0o700 });
    writeFileSync(join(cache, cachedName), PLANTED, { mode: 0o600 });
    chownSync(join(cache, cachedName), NOBODY, NOBODY);
    expect(await filterFrom(cache)).toEqual(genuine);
  });

  it('is neither read from nor written to a directory others may write', async () => {
    mkdirSync(cache);
    writeFileSync(join(cache, cachedName), PLANTED, { mode: 0o600 });
    chmodSync(cache, 0o777);
    expect(await filterFrom(cache)).toEqual(genuine);
    expect(readFileSync(join(cache, cachedName))).toEqual(PLANTED);
  });

  it.runIf(asRoot)('is neither read from nor written to a directory another user owns', async () => {
    mkdirSync(cache, { mode: 0o700 });
    writeFileSync(join(cache, cachedName), PLANTED, { mode: 0o600 });
    chownSync(cache, NOBODY, NOBODY);
    expect(await filterFrom(cache)).toEqual(genuine);
    expect(readFileSync(join(cache, cachedName))).toEqual(PLANTED);
  });

  it('is never taken through a linked directory', async () => {
    const real = join(scratch, `real-${runs}`);
    mkdirSync(real, { mode: 0o700 });
    writeFileSync(join(real, cachedName), PLANTED, { mode: 0o600 });
    symlinkSync(real, cache);
    expect(await filterFrom(cache)).toEqual(genuine);
    expect(readFileSync(join(real, cachedName))).toEqual(PLANTED);
  });

  it('is never taken from a directory inside one where others may rename it', async () => {
    const open = join(scratch, `open-${runs}`);
    mkdirSync(open);
    chmodSync(open, 0o777);
    const inner = join(open, 'cache');
    mkdirSync(inner, { mode: 0o700 });
    writeFileSync(join(inner, cachedName), PLANTED, { mode: 0o600 });
    expect(await filterFrom(inner)).toEqual(genuine);
  });
});
