import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveInstanceHash } from '@fusebox/tasks';
import { runCli } from './serve-process';

const b64 = (text: string) => Buffer.from(text).toString('base64');

const LINES = [
  // 1: Fusebox's format, an instance_hash beyond 2^53 given as a JSON number.
  '{"instance_hash": 3864552457764042195, "name": "double", "prompt": "Write double(x).", "language": "python", "tests": [{"name": "two", "code": "assert double(2) == 4"}, {"name": "imports", "code": "import math"}], "pass_to_pass": ["imports"]}',
  // 2: an AutoEval row with a string id, a #<INSERT> marker and its asset as a JSON string.
  JSON.stringify({
    id: 'csv-rows',
    content: 'Count the rows of data.csv in rows().',
    labels: {
      programming_language: 'python',
      execution_language: 'python',
      context: 'The file has a header.',
    },
    test: {
      code: 'import csv\n#<INSERT>\nassert rows() == 2',
      asset: JSON.stringify({ 'data.csv': b64('a\n1\n2\n') }),
    },
    canonical_solution: 'def rows(): return 2',
  }),
  'not json at all',
  '',
  // 5: no tests.
  '{"name": "empty", "prompt": "", "language": "python", "tests": []}',
  // 6: stdin/stdout tests cannot run in a stateful session.
  '{"name": "io", "prompt": "", "language": "python", "session_mode": "stateful", "tests": [{"name": "t", "stdin": "", "expected_stdout": "1"}]}',
  // 7: the same instance_hash as line 1.
  '{"instance_hash": "3864552457764042195", "name": "again", "prompt": "", "language": "python", "tests": [{"name": "t", "code": "pass"}]}',
  // 8: a language /run_code does not know.
  '{"name": "cobol", "prompt": "", "language": "cobol", "tests": [{"name": "t", "code": ""}]}',
];

// Each case runs the CLI, which opens the database itself: seconds apiece for an embedded one.
describe('fusebox tasks import', { timeout: 120_000 }, () => {
  let database: TestDatabase;
  let dir: string;
  let file: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    dir = mkdtempSync(join(tmpdir(), 'fusebox-tasks-'));
    file = join(dir, 'tasks.jsonl');
    writeFileSync(file, `${LINES.join('\n')}\n`);
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await database?.drop();
  });

  it('loads the good lines, reports each bad one by line number, and exits 1', async () => {
    const result = await runCli(['tasks', 'import', file], database.env);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`${file}: loaded 2 tasks (2 new, 0 updated), rejected 5 lines`);
    const problems = result.stderr.trim().split('\n');
    expect(problems).toHaveLength(5);
    expect(problems[0]).toMatch(new RegExp(`^${file}:3: not JSON`));
    expect(problems[1]).toBe(
      `${file}:5: task "empty": tests: a task needs at least one test; fail_to_pass: a task needs at least one fail-to-pass test`,
    );
    expect(problems[2]).toMatch(
      new RegExp(`^${file}:6: task "io": tests.0: stdin/stdout tests need session_mode "fresh"`),
    );
    expect(problems[3]).toBe(`${file}:7: instance_hash 3864552457764042195 is already defined on line 1`);
    expect(problems[4]).toMatch(new RegExp(`^${file}:8: task "cobol": language: Invalid option`));

    const tasks = await database.inspect((prisma) =>
      prisma.task.findMany({
        orderBy: { name: 'asc' },
        select: {
          id: true,
          name: true,
          source: true,
          prompt: true,
          sessionMode: true,
          setupFiles: true,
          failToPass: true,
          passToPass: true,
        },
      }),
    );
    expect(tasks).toEqual([
      {
        id: deriveInstanceHash('csv-rows'),
        name: 'csv-rows',
        source: 'autoeval',
        prompt: 'The file has a header.\n\nCount the rows of data.csv in rows().',
        sessionMode: 'stateful',
        setupFiles: { 'data.csv': b64('a\n1\n2\n') },
        failToPass: ['test'],
        passToPass: [],
      },
      {
        id: '3864552457764042195',
        name: 'double',
        source: 'fusebox',
        prompt: 'Write double(x).',
        sessionMode: 'stateful',
        setupFiles: {},
        failToPass: ['two'],
        passToPass: ['imports'],
      },
    ]);
  });

  it('updates tasks on a second import instead of duplicating them', async () => {
    const result = await runCli(['tasks', 'import', '--format', 'auto', file], database.env);
    expect(result.stdout).toContain('loaded 2 tasks (0 new, 2 updated), rejected 5 lines');
    expect(await database.inspect((prisma) => prisma.task.count())).toBe(2);
  });

  it('exits 0 when every line loads, and names a missing file', async () => {
    const good = join(dir, 'good.jsonl');
    writeFileSync(good, `${LINES[0]}\n`);
    const result = await runCli(['tasks', 'import', good], database.env);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('loaded 1 tasks (0 new, 1 updated), rejected 0 lines');

    const missing = await runCli(['tasks', 'import', join(dir, 'nope.jsonl')], database.env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no such file');
    const directory = await runCli(['tasks', 'import', dir], database.env);
    expect(directory.code).toBe(1);
    expect(directory.stderr).toContain(`a directory, not a file (give the JSONL file of tasks): ${dir}`);
    expect(directory.stderr).not.toMatch(/^\s+at /m);
  });

  it('refuses an unknown --format', async () => {
    const result = await runCli(['tasks', 'import', '--format', 'csv', file], database.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--format must be one of auto, fusebox, autoeval');
  });
});
