import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Executor, createExecutor } from '../src/executor';
import { writeSeccompFilter } from '../src/seccomp';

// The seccomp filter cache is written by whatever runs as Fusebox's user, and a server with isolation `none`
// runs submitted code as that user: such code can plant a filter that lets everything through, with the right
// owner, mode and size. A later bubblewrap server must not run code under it: a filter taken from the cache is
// compiled again after start, before any sandbox that runs code starts, and replaced if it differs.

/** One BPF instruction, `ret SECCOMP_RET_ALLOW`: a filter that allows every call. */
const ALLOW_ALL = Buffer.from([0x06, 0, 0, 0, 0x00, 0x00, 0xff, 0x7f]);

const scratch = mkdtempSync(join(tmpdir(), 'fusebox-seccomp-planted-'));
let genuine: Buffer;
let cachedName: string;
let outputs = 0;
const out = () => join(scratch, `out-${(outputs += 1)}.bpf`);

beforeAll(async () => {
  const path = out();
  await writeSeccompFilter(path, { cacheDir: null });
  genuine = readFileSync(path);
  const probe = join(scratch, 'probe');
  await (
    await writeSeccompFilter(out(), { cacheDir: probe })
  ).checked;
  [cachedName = ''] = readdirSync(probe);
  expect(cachedName).toMatch(/\.bpf$/);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A cache holding `filter` under this host's key, as its owner would have written it. */
function cacheHolding(name: string, filter: Buffer): string {
  const dir = mkdtempSync(join(scratch, `${name}-`));
  chmodSync(dir, 0o700);
  writeFileSync(join(dir, cachedName), filter, { mode: 0o600 });
  return dir;
}

describe('a planted seccomp filter in the cache', () => {
  it('is replaced by a fresh compile, in the cache and for the sandboxes, and reported', async () => {
    const cache = cacheHolding('planted', ALLOW_ALL);
    const path = out();
    const written = await writeSeccompFilter(path, { cacheDir: cache });
    // Control: the planted filter passed every check of the cache's (so it was taken, and is what is written).
    expect(readFileSync(path)).toEqual(ALLOW_ALL);
    expect(await written.checked).toMatch(/was not the one this host compiles/);
    expect(readFileSync(path)).toEqual(genuine);
    expect(readFileSync(join(cache, cachedName))).toEqual(genuine);
  });

  it('is left alone, and nothing reported, when it is the genuine one', async () => {
    const cache = cacheHolding('genuine', genuine);
    const path = out();
    const written = await writeSeccompFilter(path, { cacheDir: cache });
    expect(await written.checked).toBeUndefined();
    expect(readFileSync(path)).toEqual(genuine);
    expect(readFileSync(join(cache, cachedName))).toEqual(genuine);
  });
});

/** Python that ptraces a child of its own: `EPERM` under the filter, `ok` without one. */
const PTRACE_OWN_CHILD = `
import ctypes, errno, subprocess
libc = ctypes.CDLL(None, use_errno=True)
child = subprocess.Popen(["sleep", "5"])
result = libc.syscall(101, 16, child.pid, 0, 0)
print("ok" if result == 0 else errno.errorcode[ctypes.get_errno()])
child.kill()
`;

describe('code run by an isolation-none server', () => {
  const executors: Executor[] = [];
  afterAll(() => Promise.all(executors.map((executor) => executor.close())));

  it('cannot plant the filter a later bubblewrap server runs code under', async () => {
    const cache = cacheHolding('attack', genuine);
    const unisolated = await createExecutor({
      concurrency: 1,
      isolation: 'none',
      seccompCacheDir: cache,
      warn: () => {},
    });
    executors.push(unisolated);
    const plant = await unisolated.runCode({
      language: 'python',
      code: `
import os
path = ${JSON.stringify(join(cache, cachedName))}
with open(path + ".new", "wb") as f:
    f.write(bytes(${JSON.stringify([...ALLOW_ALL])}))
os.chmod(path + ".new", 0o600)
os.rename(path + ".new", path)
print("planted")
`,
    });
    expect(plant.response.run_result?.stdout).toBe('planted\n');
    expect(readFileSync(join(cache, cachedName))).toEqual(ALLOW_ALL);
    // Control: the probe detects a missing filter (an unisolated run ptraces its own child).
    const unfiltered = await unisolated.runCode({ language: 'python', code: PTRACE_OWN_CHILD });
    expect(unfiltered.response.run_result?.stdout).toBe('ok\n');

    const warnings: string[] = [];
    const sandboxed = await createExecutor({
      concurrency: 1,
      seccompCacheDir: cache,
      warn: (message) => warnings.push(message),
    });
    executors.push(sandboxed);
    // The very first run after start, sent at once.
    const filtered = await sandboxed.runCode({ language: 'python', code: PTRACE_OWN_CHILD });
    expect(filtered.response.run_result?.stdout).toBe('EPERM\n');
    expect(warnings.join('\n')).toMatch(/was not the one this host compiles/);
    expect(readFileSync(join(cache, cachedName))).toEqual(genuine);
  });
});
