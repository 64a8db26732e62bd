import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isAlive } from '../src/process-alive';
import { UidLeases } from '../src/uid-leases';

// Leases of sandbox uid blocks across processes (README: "an unprivileged host identity"). Each holder is a real
// helper process with real flocks on real files; the range is one no test elsewhere uses.

const asRoot = process.getuid?.() === 0;
const FIRST = 1_879_048_192 + 4 * 65_536;
const SIZE = 16;
const scratch = mkdtempSync(join(tmpdir(), 'fusebox-uid-leases-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let dirs = 0;
function leaseDir(): string {
  return join(scratch, `leases-${(dirs += 1)}`);
}

function open(dir: string, blocks = 3): UidLeases {
  const leases = UidLeases.open(dir, { first: FIRST, size: SIZE, blocks }, (message) => {
    throw new Error(message);
  });
  if (!leases) throw new Error('no leases');
  return leases;
}

describe('sandbox uid leases', () => {
  it('give two holders disjoint blocks, and a closed holder’s block to the next', async () => {
    const dir = leaseDir();
    const a = open(dir, 2);
    const b = open(dir, 2);
    const first = await a.lease();
    const second = await b.lease();
    expect(first?.first).toBe(FIRST);
    expect(second?.first).toBe(FIRST + SIZE);
    // Every block is held: neither gets another, and a third holder gets none.
    const c = open(dir, 2);
    expect(await c.lease()).toBeUndefined();
    expect(await a.lease()).toBeUndefined();
    // The lease file names its holder.
    expect(readFileSync(join(dir, `uids-${FIRST}-${SIZE}`), 'utf8')).toMatch(/^\d+-n\d+\.\d+-\n$/);
    await a.close();
    expect(await c.lease()).toEqual({ first: FIRST, killed: 0 });
    await Promise.all([b.close(), c.close()]);
  });

  it('frees the blocks of a holder that was SIGKILLed', async () => {
    const dir = leaseDir();
    // A holder in a process of its own, killed without a chance to clean up: the kernel drops its flocks.
    const script = `
      import { UidLeases } from ${JSON.stringify(new URL('../src/uid-leases.ts', import.meta.url).pathname)};
      const leases = UidLeases.open(${JSON.stringify(dir)}, { first: ${FIRST}, size: ${SIZE}, blocks: 1 }, console.error);
      const block = await leases.lease();
      console.log(JSON.stringify(block));
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const [line] = (await once(child.stdout, 'data')) as [Buffer];
    expect(JSON.parse(line.toString())).toEqual({ first: FIRST, killed: 0 });
    const other = open(dir, 1);
    // Control: while it lives, its block is not handed out.
    expect(await other.lease()).toBeUndefined();
    child.kill('SIGKILL');
    await once(child, 'exit');
    let block;
    for (let attempt = 0; attempt < 100 && block === undefined; attempt += 1) {
      block = await other.lease();
      if (block === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(block?.first).toBe(FIRST);
    await other.close();
  });

  it.runIf(asRoot)('kills what a dead owner left running as the block’s uids, and nothing else', async () => {
    const dir = leaseDir();
    const uid = String(FIRST + SIZE + 3);
    const outside = String(FIRST + 3 * SIZE);
    const start = (as: string) =>
      spawn('setpriv', [`--reuid=${as}`, `--regid=${as}`, '--clear-groups', 'sleep', '60'], {
        stdio: 'ignore',
      });
    const left = start(uid);
    // Control: a process of a uid outside the leased blocks survives the same lease.
    const bystander = start(outside);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(isAlive(left.pid ?? 0) && isAlive(bystander.pid ?? 0)).toBe(true);
    const holder = open(dir, 2);
    // The first block holds no process: nothing is killed for it.
    expect(await holder.lease()).toEqual({ first: FIRST, killed: 0 });
    const exited = once(left, 'exit');
    expect(await holder.lease()).toEqual({ first: FIRST + SIZE, killed: 1 });
    expect((await exited)[1]).toBe('SIGKILL');
    expect(bystander.exitCode).toBeNull();
    bystander.kill('SIGKILL');
    await holder.close();
  });

  it('refuses a lease directory others may write', async () => {
    const dir = leaseDir();
    const warnings: string[] = [];
    await open(dir).close();
    chmodSync(dir, 0o777);
    expect(
      UidLeases.open(dir, { first: FIRST, size: SIZE, blocks: 1 }, (m) => warnings.push(m)),
    ).toBeUndefined();
    expect(warnings.join()).toContain('others may write it');
  });
});
