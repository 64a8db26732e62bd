import { startServer, type RunningServer } from '@fusebox/api/testing';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSandboxClient,
  isSandboxClientError,
  type SandboxClient,
  SandboxHttpError,
  summarize,
} from '@fusebox/sandbox-client';
import type { Language } from '@fusebox/sandbox-client/protocol';
import { readContractFixtures } from '@fusebox/testing/contract-fixtures';

// A real `fusebox serve` with its local executor: the client must work against Fusebox's own /run_code.
let db: TestDatabase;
let server: RunningServer;
let client: SandboxClient;

beforeAll(async () => {
  db = await createTestDatabase();
  server = await startServer(db.env, ['--no-dashboard'], 120_000);
  client = createSandboxClient({ endpoint: server.url, timeoutMs: 120_000 });
}, 150_000);

afterAll(async () => {
  await client?.close();
  await server?.stop();
  await db?.drop();
});

const PROGRAMS: [Language, string, string][] = [
  ['python', 'import sys\nprint(sys.stdin.read().upper(), end="")', 'FROM STDIN\n'],
  ['bash', 'read line; echo "bash got $line"', 'bash got from stdin\n'],
  [
    'nodejs',
    "process.stdin.on('data', (d) => process.stdout.write(`node got ${d}`));",
    'node got from stdin\n',
  ],
  ['typescript', 'const n: number = 6 * 7;\nconsole.log(`ts ${n}`);', 'ts 42\n'],
  [
    'cpp',
    '#include <iostream>\nint main() { std::string s; std::getline(std::cin, s); std::cout << "cpp " << s << std::endl; }',
    'cpp from stdin\n',
  ],
];

describe('against Fusebox’s own /run_code', () => {
  it('answers ping', async () => {
    await expect(client.ping()).resolves.toBeUndefined();
  });

  it.each(PROGRAMS)('runs %s', async (language, code, stdout) => {
    const result = await client.runCode({ code, language, stdin: 'from stdin\n' });
    expect(result).toMatchObject({
      status: 'Success',
      run_result: { status: 'Finished', return_code: 0, stdout },
    });
    expect(summarize(result).category).toBe('success');
    expect(result.compile_result === null).toBe(language !== 'cpp');
  });

  it('runs pytest, and a failing test is a runtime_error', async () => {
    const passing = await client.runCode({
      language: 'pytest',
      code: 'def test_add():\n    assert 1 + 1 == 2\n',
    });
    expect(passing).toMatchObject({ status: 'Success', run_result: { return_code: 0 } });
    expect(passing.run_result?.stdout).toContain('1 passed');
    const failing = await client.runCode({
      language: 'pytest',
      code: 'def test_add():\n    assert 1 + 1 == 3\n',
    });
    expect(summarize(failing)).toMatchObject({ category: 'runtime_error', exitCode: 1 });
  });

  it('reports failures in verl’s categories', async () => {
    const exit3 = await client.runCode({
      language: 'python',
      code: 'import sys\nprint("before exit")\nsys.exit(3)',
    });
    expect(summarize(exit3)).toMatchObject({ category: 'runtime_error', exitCode: 3, stdout: 'before exit' });
    const loop = await client.runCode({
      language: 'python',
      code: 'while True:\n    pass',
      run_timeout: 0.5,
    });
    expect(summarize(loop)).toMatchObject({ category: 'timeout', exitCode: null });
    const broken = await client.runCode({ language: 'cpp', code: 'int main() { return undefined_name; }' });
    expect(summarize(broken).category).toBe('compile_error');
    const wrong = await client.runCode({ language: 'python', code: 'print(41)' });
    expect(summarize(wrong, { expectedOutput: '42' }).category).toBe('wrong_answer');
  });

  it('round-trips files in and out', async () => {
    const result = await client.runCode({
      language: 'bash',
      code: 'cat data/in.txt > out.txt; echo done',
      files: { 'data/in.txt': Buffer.from('payload\n').toString('base64') },
      fetch_files: ['out.txt'],
    });
    expect(Buffer.from(result.files['out.txt'] ?? '', 'base64').toString()).toBe('payload\n');
  });

  it('runs jupyter cells in one kernel', async () => {
    const result = await client.runJupyter({
      cells: ['a = "hello"', 'a', 'print(a)', 'assert 1 == 2', 'print(2)'],
    });
    expect(result.status).toBe('Success');
    expect(result.cells.map((cell) => cell.stdout)).toEqual(['', '', 'hello\n', '', '2\n']);
    expect(result.cells[1]?.display).toEqual([{ 'text/plain': "'hello'" }]);
    expect(result.cells[3]?.error[0]?.ename).toBe('AssertionError');
  });

  it('rejects an unknown language with SandboxFusion’s exact 422 body', async () => {
    const fixture = readContractFixtures().find((f) => f.name === 'unknown_language_422')!;
    const error: unknown = await client
      .runCode(fixture.body as { code: string; language: Language })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxHttpError);
    expect(error).toMatchObject({ status: 422, body: fixture.responseText.trim() });
  });

  it('runs a batch concurrently, in order', async () => {
    const requests = Array.from({ length: 12 }, (_, i) => ({
      language: 'python' as const,
      code: `print(${i} * ${i})`,
    }));
    const results = await client.runConcurrent(requests, { concurrency: 4 });
    expect(
      results.map((result) => (isSandboxClientError(result) ? result : result.run_result?.stdout)),
    ).toEqual(requests.map((_, i) => `${i * i}\n`));
  });

  it('runs the README’s usage example as written and prints what the README says', async () => {
    const readme = await readFile(
      new URL('../../packages/sandbox-client/README.md', import.meta.url),
      'utf8',
    );
    const [, code = '', printed = ''] = /```ts\n([\s\S]*?)```[\s\S]*?```\n([\s\S]*?)```/.exec(readme) ?? [];
    // Inside the workspace, so that the example's imports resolve as they would for a user; under node_modules,
    // so that no linter or test runner picks the file up while it exists.
    const cache = new URL('../node_modules/.cache/', import.meta.url);
    await mkdir(cache, { recursive: true });
    const script = new URL(`readme-example-${process.pid}.mts`, cache);
    await writeFile(script, code);
    try {
      const child = spawn(
        process.execPath,
        ['--conditions=@fusebox/source', '--import', 'tsx', script.pathname],
        {
          env: { ...process.env, SANDBOX_FUSION_ENDPOINT: server.url },
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const [exitCode] = (await once(child, 'exit')) as [number | null];
      expect(exitCode).toBe(0);
      expect(stdout).toBe(printed);
    } finally {
      await unlink(script);
    }
  }, 60_000);
});
