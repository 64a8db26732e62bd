import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX_UID_BASE } from '@fusebox/local-sandbox/executor-options';
import { type HostileServer, startHostileServer } from './hostile-server';
import { hostProcesses, runCode } from './sandbox-probe';

// Class 1 of the trust boundary (issue 15), across servers: two Fusebox servers on one machine, run as root, each
// give every live sandbox a host uid of its own, and never one the other hands out (a shared uid would join two
// runs' /proc entries, per-user kernel limits and files in shared places). Each server leases whole blocks of
// the uid range through flocked files; a SIGKILLed server's blocks go to the next server that starts.

const asRoot = process.getuid?.() === 0;
/** A range of its own, so servers other tests start meanwhile (on the default base) never meet these. */
const BASE = DEFAULT_SANDBOX_UID_BASE + 8 * 65_536;
const BLOCK = 64;
const ENV = {
  FUSEBOX_SANDBOX_UID_BASE: String(BASE),
  FUSEBOX_SANDBOX_UID_BLOCK: String(BLOCK),
  FUSEBOX_EXECUTOR_CONCURRENCY: '2',
};

const servers: HostileServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
});

/**
 * Runs `count` bash runs at once on `h`, each holding a marked process for a while, and returns the host uids the
 * host saw them run as (found by marker in the host's process list: inside, only nobody is mapped).
 */
async function uidsOfRuns(h: HostileServer, tag: string, count: number): Promise<number[]> {
  const marker = (n: number) => `fusebox-uid-lease-${tag}-${n}-${process.pid}`;
  const seen = new Map<number, number>();
  // Not a probe of the server's health (two servers starting at once on a loaded machine answer slowly at first),
  // so the runs are not watched.
  {
    const runs = Array.from({ length: count }, (_, n) =>
      runCode(h, 'bash', `exec -a ${marker(n)} sleep 3`, { run_timeout: 20 }),
    );
    for (const run of runs) run.catch(() => undefined);
    for (let attempt = 0; attempt < 200 && seen.size < count; attempt += 1) {
      for (let n = 0; n < count; n += 1) {
        const [found] = hostProcesses(marker(n));
        if (found !== undefined) seen.set(n, found.uid);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    for (const answer of await Promise.all(runs)) expect(answer.status).toBe('Success');
  }
  // Control: every run was found on the host while it ran, so the comparison below is about all of them.
  expect(seen.size).toBe(count);
  return [...seen.values()];
}

const blockOf = (uid: number) => Math.floor((uid - BASE) / BLOCK);

describe.runIf(asRoot)('sandbox uids of two servers on one machine', () => {
  it('are disjoint when both start at once and run at once, and a SIGKILLed server’s go to the next', async () => {
    const [a, b] = await Promise.all([startHostileServer(ENV), startHostileServer(ENV)]);
    servers.push(a, b);
    const [uidsA, uidsB] = await Promise.all([uidsOfRuns(a, 'a', 2), uidsOfRuns(b, 'b', 2)]);
    for (const uid of [...uidsA, ...uidsB]) {
      expect(uid).toBeGreaterThanOrEqual(BASE);
      expect(uid).toBeLessThan(BASE + 65_536);
    }
    // Each server's runs are apart from each other, and the two servers' blocks are apart.
    expect(new Set(uidsA).size).toBe(2);
    expect(new Set(uidsB).size).toBe(2);
    const blocksA = new Set(uidsA.map(blockOf));
    const blocksB = new Set(uidsB.map(blockOf));
    expect([...blocksA].filter((block) => blocksB.has(block))).toEqual([]);

    // A dies without cleaning up; the next server to start gets A's block (the lowest free one), not a new one.
    a.server.process.kill('SIGKILL');
    await new Promise((resolve) => a.server.process.once('exit', resolve));
    const c = await startHostileServer(ENV);
    servers.push(c);
    const uidsC = await uidsOfRuns(c, 'c', 2);
    const blocksC = new Set(uidsC.map(blockOf));
    expect(Math.min(...blocksC)).toBe(Math.min(...blocksA));
    expect([...blocksC].filter((block) => blocksB.has(block))).toEqual([]);
  });
});
