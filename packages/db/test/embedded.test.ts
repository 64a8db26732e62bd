import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openEmbeddedDatabase } from '../src/embedded';
import { EmbeddedDatabaseError } from '../src/errors/embedded-database-error';
import { migrate } from '../src/migrate';
import { readMigrations } from '../src/migrations';

const root = await mkdtemp(join(tmpdir(), 'fusebox-embedded-'));
afterAll(() => rm(root, { recursive: true, force: true }));

describe('the embedded database', () => {
  it('migrates, keeps its data across a restart, and records migrations like Postgres does', async () => {
    const dataDir = join(root, 'persist');
    const first = await openEmbeddedDatabase(dataDir);
    const result = await migrate(first.sql, { lock: false });
    expect(result.applied).toEqual((await readMigrations()).map((migration) => migration.name));
    await first.prisma.execution.create({
      data: { source: 'run_code', language: 'python', code: 'print(1)', status: 'Success', stdout: '1\n' },
    });
    await first.close();

    const second = await openEmbeddedDatabase(dataDir);
    try {
      expect((await migrate(second.sql, { lock: false })).applied).toEqual([]);
      const rows = await second.prisma.execution.findMany({ select: { code: true, stdout: true } });
      expect(rows).toEqual([{ code: 'print(1)', stdout: '1\n' }]);
    } finally {
      await second.close();
    }
  });

  it('refuses a data directory another live process holds, naming it and the pid', async () => {
    const dataDir = join(root, 'locked');
    const holder = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./fixtures/hold-data-dir.ts', import.meta.url)), dataDir],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await once(holder.stdout, 'data');
      const error = await openEmbeddedDatabase(dataDir).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(EmbeddedDatabaseError);
      expect((error as EmbeddedDatabaseError).code).toBe('FUSEBOX_DB_DATA_DIR_LOCKED');
      expect((error as Error).message).toContain(dataDir);
      expect((error as Error).message).toContain(`pid ${holder.pid}`);
    } finally {
      holder.kill('SIGKILL');
      await once(holder, 'exit');
    }
    // The holder died without releasing the lock: the directory is usable again.
    const reopened = await openEmbeddedDatabase(dataDir);
    await reopened.close();
  });

  it('gives a stale lock to exactly one of several processes taking it over at once', async () => {
    const dataDir = join(root, 'race');
    await mkdir(dataDir, { recursive: true });
    // The pid of a process that has exited: its lock was left behind.
    const dead = spawn(process.execPath, ['-e', '']);
    await once(dead, 'exit');
    for (let round = 0; round < 3; round += 1) {
      await writeFile(join(dataDir, 'fusebox.lock'), `${dead.pid}\n`);
      const racers = Array.from({ length: 6 }, () =>
        spawn(
          process.execPath,
          [
            '--import',
            'tsx',
            fileURLToPath(new URL('./fixtures/race-data-dir-lock.ts', import.meta.url)),
            dataDir,
          ],
          { stdio: ['pipe', 'pipe', 'inherit'] },
        ),
      );
      try {
        const said = racers.map(async (racer) => {
          let output = '';
          racer.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
          while (!/(locked|refused)\n/.test(output)) await once(racer.stdout, 'data');
          return /locked/.test(output) ? 'locked' : 'refused';
        });
        // All started and waiting, then all let go at once.
        await Promise.all(racers.map((racer) => once(racer.stdout, 'data')));
        for (const racer of racers) racer.stdin.write('go\n');
        const outcomes = await Promise.all(said);
        expect(
          outcomes.filter((outcome) => outcome === 'locked'),
          `round ${round}`,
        ).toHaveLength(1);
      } finally {
        for (const racer of racers) racer.kill('SIGKILL');
        await Promise.all(
          racers.filter((racer) => racer.exitCode === null).map((racer) => once(racer, 'exit')),
        );
      }
    }
  });

  it('names the path when the data directory holds something that is not a database', async () => {
    const dataDir = join(root, 'corrupt');
    await mkdir(join(dataDir, 'pgdata'), { recursive: true });
    await writeFile(join(dataDir, 'pgdata', 'notes.txt'), 'not a cluster');
    const error = await openEmbeddedDatabase(dataDir).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EmbeddedDatabaseError);
    expect((error as EmbeddedDatabaseError).code).toBe('FUSEBOX_DB_DATA_DIR_UNUSABLE');
    expect((error as Error).message).toContain(join(dataDir, 'pgdata'));
  });

  it('names the path when the data directory is a file', async () => {
    const dataDir = join(root, 'a-file');
    await writeFile(dataDir, 'oops');
    const error = await openEmbeddedDatabase(dataDir).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EmbeddedDatabaseError);
    expect((error as Error).message).toContain(dataDir);
  });
});
