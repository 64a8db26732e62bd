import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { createEmbeddedTestDatabase, type EmbeddedTestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../session-client';
import { type RunningServer, startServer } from '../serve-process';
import { descendants, unreapedZombies } from './process-tree';

// Fusebox as pid 1, as a container runs its command: every process orphaned below pid 1 (a sandbox whose
// bubblewrap died first, say) is handed to it, and Node reaps only the children it spawned. Before, the spawner
// refused to start under a pid 1 parent, and every run's sandbox left a zombie for pid 1 (79 after 190 runs).
// `unshare -fp --mount-proc` makes the new pid namespace; it needs root.
const ROOT = process.getuid?.() === 0;
const RUNS = 60;

/** Python, bash and a run that times out (its sandbox is killed), four at a time. */
async function mixedRuns(server: RunningServer): Promise<number[]> {
  const bodies = [
    { code: 'print(1)', language: 'python' },
    { code: 'echo hi; sleep 10 &', language: 'bash' },
    { code: 'import time; time.sleep(5)', language: 'python', run_timeout: 0.2 },
  ];
  const statuses: number[] = [];
  for (let next = 0; next < RUNS; next += 4) {
    const batch = Array.from({ length: 4 }, (_, index) => bodies[(next + index) % bodies.length]!);
    const answers = await Promise.all(batch.map((body) => post(server, '/run_code', body)));
    statuses.push(...answers.map((answer) => answer.status));
  }
  return statuses;
}

/**
 * Stops a server started under `unshare` (which ignores SIGTERM itself): SIGTERM to the outermost node in its
 * namespace, which is pid 1 there or the server; resolves to what unshare exits with (the namespace's pid 1's).
 */
async function stopInside(server: RunningServer): Promise<number | null> {
  const exited = once(server.process, 'exit');
  const node = descendants(server.process.pid!).find((entry) => entry.command === 'node');
  if (node) process.kill(node.pid, 'SIGTERM');
  const [code] = (await exited) as [number | null];
  return code;
}

describe.skipIf(!ROOT)('fusebox serve as pid 1 of its pid namespace', () => {
  let database: EmbeddedTestDatabase;
  let server: RunningServer | undefined;
  let dir: string;

  beforeAll(async () => {
    database = await createEmbeddedTestDatabase();
    dir = database.env.FUSEBOX_DATA_DIR as string;
  });
  afterAll(async () => {
    // unshare ignores signals; its namespace's pid 1 takes every process there with it.
    if (server?.process.exitCode === null) {
      const exited = once(server.process, 'exit');
      const pid1 = descendants(server.process.pid!)[0];
      if (pid1) process.kill(pid1.pid, 'SIGKILL');
      await exited;
    }
    await database?.drop();
  });

  it('runs code and leaves no zombie, with node itself as pid 1', { timeout: 240_000 }, async () => {
    server = await startServer(database.env, ['--no-dashboard'], 120_000, {
      launcher: ['unshare', '-fp', '--mount-proc'],
    });
    expect(new Set(await mixedRuns(server))).toEqual(new Set([200]));
    expect(await unreapedZombies(server.process.pid!)).toEqual([]);
    // The spawner killed while sandboxes run: they are orphaned up to pid 1 and die (with their parent, or
    // their cgroup killed); pid 1 must reap them. The next runs get a new spawner.
    const running = Array.from({ length: 3 }, () =>
      post(server!, '/run_code', { code: 'sleep 5', language: 'bash', run_timeout: 30 }),
    );
    await sleep(2_000);
    const spawner = descendants(server.process.pid!).find(
      (entry) =>
        entry.command === 'python3' &&
        readFileSync(`/proc/${entry.pid}/cmdline`, 'utf8').includes('posix_spawnp'),
    );
    expect(spawner).toBeDefined();
    process.kill(spawner!.pid, 'SIGKILL');
    await Promise.all(running);
    expect((await post(server, '/run_code', { code: 'print(2)', language: 'python' })).status).toBe(200);
    expect(await unreapedZombies(server.process.pid!)).toEqual([]);
    expect(await stopInside(server)).toBe(0);
  });

  it('leaves no zombie to a pid 1 that reaps nothing it did not start', { timeout: 240_000 }, async () => {
    // What Node does as pid 1 without its init, and what a careless container entrypoint does: the sandboxes'
    // orphans must be reaped below it, by the spawner.
    const init = join(dir, '..', 'reaps-only-its-child.py');
    writeFileSync(init, 'import subprocess, sys\nsys.exit(subprocess.Popen(sys.argv[1:]).wait())\n');
    server = await startServer(database.env, ['--no-dashboard'], 120_000, {
      launcher: ['unshare', '-fp', '--mount-proc', 'python3', init],
    });
    expect(new Set(await mixedRuns(server))).toEqual(new Set([200]));
    const zombies = await unreapedZombies(server.process.pid!);
    expect(zombies).toEqual([]);
    expect(descendants(server.process.pid!).length).toBeGreaterThan(2);
    expect(await stopInside(server)).toBe(0);
  });
});
