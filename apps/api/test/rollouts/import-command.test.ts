import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { dumpLine, writeDump } from '@fusebox/testing/rollout-dump';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../serve-process';

// A command opens the database itself, so no test holds it meanwhile (an embedded one has a single owner).
describe('fusebox rollouts import', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());

  it('says so, without a stack trace, when the directory has no dump files', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fusebox-empty-'));
    await writeFile(join(dir, 'notes.txt'), 'nothing here');
    const result = await runCli(['rollouts', 'import', dir], database.env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`no {step}.jsonl files in ${dir}`);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('prints malformed lines and a summary from the command line', async () => {
    const dir = await writeDump({ '1.jsonl': [dumpLine(), 'not json'], 'x.jsonl': [dumpLine()] });
    const result = await runCli(['rollouts', 'import', dir, '--name', 'cli'], database.env);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('1.jsonl:2: not valid JSON');
    expect(result.stderr).toContain('x.jsonl: skipped, the name is not a step number');
    expect(result.stdout).toContain('run "cli": imported 1 samples');
    const again = await runCli(['rollouts', 'import', dir, '--name', 'cli'], database.env);
    expect(again.stdout).toContain('nothing new');
  });

  it('imports with --jobs, and refuses a --jobs that is not a whole number from 1 to 32', async () => {
    const dir = await writeDump({ '1.jsonl': [dumpLine()], '2.jsonl': [dumpLine({ step: 2 })] });
    const result = await runCli(['rollouts', 'import', dir, '--name', 'jobs', '--jobs', '4'], database.env);
    expect(result.stdout).toContain('run "jobs": imported 2 samples');
    for (const jobs of ['0', '1.5', 'two', '33']) {
      const refused = await runCli(['rollouts', 'import', dir, '--jobs', jobs], database.env);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`--jobs must be a whole number from 1 to 32, not "${jobs}"`);
    }
  });
});
