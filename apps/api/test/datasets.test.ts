import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '@fusebox/db/database';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import type { Executor } from '@fusebox/local-sandbox/executor';
import { createSandboxClient, type SandboxClient } from '@fusebox/sandbox-client';
import { importTasks, loadBuiltinTasks } from '@fusebox/tasks';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEnv } from '../src/env';
import { createServerExecutor } from '../src/sandbox-executor';
import { buildServer } from '../src/server';

// SandboxFusion's dataset API over Fusebox's tasks, driven through @fusebox/sandbox-client's dataset calls
// against a real server on loopback, judging real completions in the sandbox.

/** Two rows in SandboxFusion's AutoEval shape: numeric and string ids, test code appended to the solution. */
const AUTOEVAL_ROWS = [
  {
    id: 11,
    content: 'Write a function remove_occ(s, ch) that removes the first and last occurrence of ch from s.',
    labels: { programming_language: 'python', category: 'string' },
    test: { code: 'assert remove_occ("hello", "l") == "heo"\nassert remove_occ("abcda", "a") == "bcd"' },
  },
  {
    id: 'square-cpp',
    content: 'Write int square(int x).',
    labels: { programming_language: 'cpp' },
    test: { code: 'int main() { return square(7) == 49 ? 0 : 1; }' },
  },
];

/** One row of each of SandboxFusion's other dataset tables: HumanEval, MBPP, CommonOJ. */
const OTHER_ROWS = [
  {
    task_id: 'HumanEval/0',
    prompt: 'def add(a: int, b: int) -> int:\n    """Return a + b."""\n',
    test: 'def check(candidate):\n    assert candidate(2, 3) == 5\n    assert candidate(-1, 1) == 0\n',
    entry_point: 'add',
  },
  {
    id: 2,
    content: 'Write a function to find the shared elements of two lists.',
    test_list: JSON.stringify(['assert set(shared([1, 2], [2, 3])) == {2}', 'assert shared([], [1]) == []']),
    labels: { test_setup_code: 'import math' },
  },
  {
    id: 'sum-ab',
    content: 'Read two integers and print their sum.',
    labels: { programming_language: 'python' },
    test: [
      { input: { stdin: '1 2\n' }, output: { stdout: '3\n' } },
      { input: { stdin: '-5 5\n' }, output: { stdout: '0\n' } },
    ],
  },
];

describe('the dataset API (SandboxFusion shapes) over Fusebox tasks', () => {
  let database: TestDatabase;
  let opened: Database;
  let executor: Executor;
  let app: FastifyInstance;
  let client: SandboxClient;
  let dir: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    opened = await database.open();
    await loadBuiltinTasks(opened.prisma);
    dir = mkdtempSync(join(tmpdir(), 'fusebox-datasets-'));
    const file = join(dir, 'autoeval.jsonl');
    writeFileSync(file, AUTOEVAL_ROWS.map((row) => JSON.stringify(row)).join('\n'));
    const summary = await importTasks(opened.prisma, { path: file });
    expect(summary.rejected).toBe(0);
    const others = join(dir, 'others.jsonl');
    writeFileSync(others, OTHER_ROWS.map((row) => JSON.stringify(row)).join('\n'));
    expect(await importTasks(opened.prisma, { path: others })).toMatchObject({ loaded: 3, rejected: 0 });
    const env = readEnv({ ...database.env, FUSEBOX_EXECUTOR_CONCURRENCY: '2' });
    executor = await createServerExecutor(env);
    app = await buildServer(
      { env, prisma: opened.prisma, startedAt: new Date(), executor },
      { logger: false },
    );
    const endpoint = await app.listen({ host: '127.0.0.1', port: 0 });
    client = createSandboxClient({ endpoint });
  });
  afterAll(async () => {
    await client?.close();
    await app?.close();
    await executor?.close();
    await opened?.close();
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('lists datasets, ids and prompts, with SandboxFusion ids and labels', async () => {
    expect(await client.listDatasets()).toEqual(['autoeval', 'builtin', 'common_oj', 'humaneval', 'mbpp']);
    expect(await client.listIds({ dataset: 'autoeval', config: {} })).toEqual([11, 'square-cpp']);
    const page = await client.getPrompts({ dataset: 'autoeval', config: {}, offset: 1, limit: 5 });
    expect(page).toEqual([
      {
        id: 'square-cpp',
        prompt: 'Write int square(int x).',
        labels: { programming_language: 'cpp' },
      },
    ]);
    const prompt = await client.getPromptById({ dataset: 'autoeval', config: {}, id: 11 });
    expect(prompt.labels).toMatchObject({ programming_language: 'python', category: 'string' });
    expect(prompt.prompt).toContain('remove_occ');
  });

  it('submits completions: judged by the tests in the sandbox, recorded as executions', async () => {
    const right = await client.submit({
      dataset: 'autoeval',
      id: 11,
      completion:
        'Here:\n```python\ndef remove_occ(s, ch):\n    s = s.replace(ch, "", 1)\n    i = s.rfind(ch)\n    return s if i < 0 else s[:i] + s[i + 1:]\n```',
      config: {},
    });
    expect(right).toMatchObject({ id: 11, accepted: true });
    expect(right.extracted_code).toContain('def remove_occ');
    expect(right.tests).toHaveLength(1);
    expect(right.tests[0]?.passed).toBe(true);

    const wrong = await client.submit({
      dataset: 'autoeval',
      id: 11,
      completion: '```python\ndef remove_occ(s, ch):\n    return s\n```',
      config: {},
    });
    expect(wrong.accepted).toBe(false);
    expect(wrong.tests[0]).toMatchObject({
      passed: false,
      test_info: { name: 'test', status: 'wrong_answer' },
    });
    expect(wrong.tests[0]?.test_info?.detail).toContain("remove_occ('hello', 'l') = 'hello'");

    const cpp = await client.submit({
      dataset: 'autoeval',
      id: 'square-cpp',
      completion: '```cpp\nint square(int x) { return x * x; }\n```',
      config: {},
    });
    expect(cpp.accepted).toBe(true);
    expect(cpp.tests[0]?.exec_info.compile_result?.return_code).toBe(0);

    const recorded = await opened.prisma.execution.count({ where: { source: 'dataset_submit' } });
    expect(recorded).toBe(3);
  });

  it('imports HumanEval, MBPP and CommonOJ rows and judges completions as SandboxFusion does', async () => {
    expect(await client.listIds({ dataset: 'humaneval', config: {} })).toEqual(['HumanEval/0']);
    const mbppPrompt = await client.getPromptById({ dataset: 'mbpp', config: {}, id: 2 });
    expect(mbppPrompt.prompt).toMatch(
      /^You are an expert Python programmer, and here is your task: Write a function/,
    );
    expect(mbppPrompt.prompt).toContain('assert shared([], [1]) == []');

    const humaneval = (completion: string) =>
      client.submit({ dataset: 'humaneval', id: 'HumanEval/0', completion, config: {} });
    expect((await humaneval('```python\ndef add(a, b):\n    return a + b\n```')).accepted).toBe(true);
    expect((await humaneval('```python\ndef add(a, b):\n    return a - b\n```')).accepted).toBe(false);

    const mbpp = await client.submit({
      dataset: 'mbpp',
      id: 2,
      completion: '```python\ndef shared(a, b):\n    return [x for x in a if x in b]\n```',
      config: {},
    });
    expect(mbpp.accepted).toBe(true);

    const oj = (completion: string) =>
      client.submit({ dataset: 'common_oj', id: 'sum-ab', completion, config: {} });
    const right = await oj('```python\na, b = map(int, input().split())\nprint(a + b)\n```');
    expect(right.accepted).toBe(true);
    expect(right.tests.map((test) => test.exec_info.run_result?.stdout)).toEqual(['3\n', '0\n']);
    const wrong = await oj('```python\na, b = map(int, input().split())\nprint(a * b)\n```');
    expect(wrong.accepted).toBe(false);
    expect(wrong.tests.map((test) => test.passed)).toEqual([false, false]);
  });

  it('answers metrics as SandboxFusion does for a dataset without them', async () => {
    expect(await client.getMetrics({ dataset: 'autoeval', config: {}, results: [] })).toEqual({});
    expect(await client.getMetricsFunction({ dataset: 'autoeval', config: {} })).toEqual({ function: null });
  });

  it('refuses an unknown dataset (400) and an unknown problem (404), naming them', async () => {
    const post = (path: string, body: object) =>
      app.inject({ method: 'POST', url: path, payload: body }).then((response) => ({
        status: response.statusCode,
        detail: response.json<{ detail: unknown }>().detail,
      }));
    const unknownDataset = await post('/get_prompts', { dataset: 'code_contests', config: {} });
    expect(unknownDataset.status).toBe(400);
    expect(unknownDataset.detail).toContain('no dataset "code_contests"');
    expect(unknownDataset.detail).toContain('autoeval');
    const unknownId = await post('/submit', { dataset: 'autoeval', id: 99, completion: '', config: {} });
    expect(unknownId).toEqual({ status: 404, detail: 'no problem 99 in dataset "autoeval"' });
    const invalid = await post('/submit', { dataset: 'autoeval', id: 11, config: {} });
    expect(invalid.status).toBe(422);
  });
});
