import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
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

  it.runIf(asRoot)('never give a block overlapping one held under another block size', async () => {
    // Two servers with different FUSEBOX_SANDBOX_UID_BLOCK share the lease directory: their files differ, so
    // before the overlap check the second leased uids the first held, and killed its running sandbox (issue 16).
    const dir = leaseDir();
    // A range of this process's own: another run of this file at once (CI beside a developer) kills in FIRST's.
    const first = FIRST + 65_536 + (process.pid % 1024) * 64;
    const uid = String(first + 1);
    /** A process running as `uid`, once it does (setpriv switches before it execs sleep). */
    const sandboxOf = async () => {
      const child = spawn('setpriv', [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', 'sleep', '60'], {
        stdio: 'ignore',
      });
      await vi.waitFor(
        () =>
          expect(readFileSync(`/proc/${child.pid}/status`, 'utf8')).toMatch(
            new RegExp(`^Uid:\\t${uid}\\t`, 'm'),
          ),
        { timeout: 10_000, interval: 20 },
      );
      return child;
    };
    const left = await sandboxOf();
    const killed = once(left, 'exit');
    const big = UidLeases.open(dir, { first, size: SIZE, blocks: 2 }, (message) => {
      throw new Error(message);
    });
    expect(await big?.lease()).toEqual({ first, killed: 1 });
    await killed;
    // The first holder's block now holds a live process of its own.
    const own = await sandboxOf();
    const small = UidLeases.open(dir, { first, size: SIZE / 4, blocks: 8 }, (message) => {
      throw new Error(message);
    });
    // The blocks of 4 inside the held block of 16 are skipped; the first one after it is leased.
    expect(await small?.lease()).toEqual({ first: first + SIZE, killed: 0 });
    expect(own.exitCode).toBeNull();
    expect(isAlive(own.pid ?? 0)).toBe(true);
    // Control: once the big block is given back, the small holder takes its uids (and kills what runs there).
    await big?.close();
    const exited = once(own, 'exit');
    expect(await small?.lease()).toEqual({ first, killed: 1 });
    expect((await exited)[1]).toBe('SIGKILL');
    await small?.close();
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
  it.runIf(asRoot)(
    'keep lock files no other user can open, so none can hold leases.lock and stall every holder',
    async () => {
      // Hostile probe (R2): a flock needs only a read-only descriptor, and every lease is taken under an exclusive,
      // blocking flock on <dir>/leases.lock: another local user who could open it would stall every server's lease.
      const dir = leaseDir();
      const holder = open(dir, 2);
      expect(await holder.lease()).toEqual({ first: FIRST, killed: 0 });
      // The directory as an operator may have made it: others may look in, not write.
      chmodSync(scratch, 0o755);
      chmodSync(dir, 0o755);
      const flockAsNobody = (path: string) =>
        spawnSync(
          'setpriv',
          [
            '--reuid=65534',
            '--regid=65534',
            '--clear-groups',
            '/usr/bin/python3',
            '-c',
            'import fcntl, sys\nfd = open(sys.argv[1])\nfcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\nprint("locked")',
            path,
          ],
          { encoding: 'utf8' },
        );
      const files = readdirSync(dir);
      expect(files).toContain('leases.lock');
      for (const name of files) {
        const attempt = flockAsNobody(join(dir, name));
        expect(attempt.stdout, name).not.toContain('locked');
        expect(attempt.stderr, name).toContain('PermissionError');
      }
      // Control: a file of the same directory that others may read is opened and locked by the same user.
      writeFileSync(join(dir, 'lax'), '', { mode: 0o644 });
      expect(flockAsNobody(join(dir, 'lax')).stdout).toContain('locked');
      // And the holder still leases.
      expect(await holder.lease()).toEqual({ first: FIRST + SIZE, killed: 0 });
      await holder.close();
    },
  );
});
