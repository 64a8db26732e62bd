import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { dumpLine, writeDump } from '@fusebox/testing/rollout-dump';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './serve-process';

describe('fusebox runs list and delete', () => {
  let database: TestDatabase;
  let dir: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    dir = await writeDump({
      '1.jsonl': [dumpLine({ score: 0 }), dumpLine({ score: 1 })],
      '2.jsonl': [dumpLine({ step: 2, score: 1 })],
    });
  });
  afterAll(() => database?.drop());

  it('lists each run with its steps and samples, deletes one by name, and says what to do when none', async () => {
    const empty = await runCli(['runs', 'list'], database.env);
    expect(empty).toMatchObject({ code: 0 });
    expect(empty.stdout).toContain('no rollout runs yet');

    for (const name of ['first-run', 'second-run']) {
      const imported = await runCli(['rollouts', 'import', dir, '--name', name], database.env);
      expect(imported.code, imported.stderr).toBe(0);
    }
    const listed = await runCli(['runs', 'list'], database.env);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+ID\s+STEPS\s+SAMPLES\s+IMPORTED\s+FROM$/);
    // Newest first: each run has 2 steps and 3 samples, from the dump directory.
    expect(lines.slice(1).map((line) => line.split(/\s+/).slice(0, 4))).toEqual([
      ['second-run', expect.stringMatching(/^[0-9a-f-]{36}$/), '2', '3'],
      ['first-run', expect.stringMatching(/^[0-9a-f-]{36}$/), '2', '3'],
    ]);
    expect(lines[1]).toContain(dir);

    const deleted = await runCli(['runs', 'delete', 'first-run'], database.env);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toContain(`3 samples`);
    expect(deleted.stdout).toContain(`fusebox rollouts import ${dir} --name first-run`);
    const after = await runCli(['runs', 'list'], database.env);
    expect(after.stdout).toContain('second-run');
    expect(after.stdout).not.toContain('first-run');
    // Opened here and closed at once: an embedded database has one process at a time, and the CLI is next.
    const opened = await database.open();
    expect(await opened.prisma.rolloutSample.count()).toBe(3);
    await opened.close();
  });

  it('deletes by id, and names a run it does not know', async () => {
    const [line] = (await runCli(['runs', 'list'], database.env)).stdout.trim().split('\n').slice(1);
    const id = line!.split(/\s+/)[1]!;
    const deleted = await runCli(['runs', 'delete', id], database.env);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toContain('deleted second-run');
    const unknown = await runCli(['runs', 'delete', 'no-such-run'], database.env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no run named "no-such-run"; `fusebox runs list` lists them');
    const usage = await runCli(['runs', 'delete'], database.env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('expected exactly one run, by name or id');
  });
});
