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

    // A chat model's answer: the whole function, fenced (SandboxFusion's `is_freeform`).
    const freeform = (completion: string) =>
      client.submit({
        dataset: 'humaneval',
        id: 'HumanEval/0',
        completion,
        config: { extra: { is_freeform: true } },
      });
    expect((await freeform('```python\ndef add(a, b):\n    return a + b\n```')).accepted).toBe(true);
    expect((await freeform('```python\ndef add(a, b):\n    return a - b\n```')).accepted).toBe(false);
    // The prompt a chat model gets with is_freeform, as SandboxFusion words it, fenced; locale zh in Chinese.
    const chat = await client.getPromptById({
      dataset: 'humaneval',
      id: 'HumanEval/0',
      config: { extra: { is_freeform: true } },
    });
    expect(chat.prompt).toBe(
      '```python\ndef add(a: int, b: int) -> int:\n    """Return a + b."""\n\n```\n\nPlease complete the above code according to the requirements in the docstring. Write the complete code and wrap it in markdown syntax. The code should not contain `Main` function.',
    );
    const [zh] = await client.getPrompts({
      dataset: 'humaneval',
      config: { locale: 'zh', extra: { is_freeform: true } },
    });
    expect(zh?.prompt).toMatch(/^```python\n[^]*\n```\n\n请按照docstring的要求补全如上代码/);
    const plain = await client.getPromptById({ dataset: 'humaneval', id: 'HumanEval/0', config: {} });
    expect(plain.prompt).toBe('def add(a: int, b: int) -> int:\n    """Return a + b."""\n');

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

  it('joins a HumanEval completion to its prompt as SandboxFusion does: the body, cut at column 0', async () => {
    const submit = (completion: string) =>
      client.submit({ dataset: 'humaneval', id: 'HumanEval/0', completion, config: {} });
    // A base model continues the prompt; what it writes after the body (here a call that would fail) is cut.
    const right = await submit('    return a + b\n\nprint(add("x"))\n');
    expect(right.accepted).toBe(true);
    expect(right.extracted_code).toBe('    return a + b\n');
    expect(right.full_code).toContain('    """Return a + b."""\n\n    return a + b');
    expect(right.full_code).toMatch(/^import math\n/);
    // SandboxFusion's imports come first: a body using them without importing them runs.
    expect((await submit('    return int(math.fsum([a, b]))')).accepted).toBe(true);
    expect((await submit('    return a * b')).accepted).toBe(false);
    // Without is_freeform a fenced answer is not extracted: SandboxFusion judges it as a body, and so does Fusebox.
    expect((await submit('```python\ndef add(a, b):\n    return a + b\n```')).accepted).toBe(false);
  });

  it('applies config: timeouts, the language of a stdin/stdout problem, a row in provided_data', async () => {
    const slow = await client.submit({
      dataset: 'common_oj',
      id: 'sum-ab',
      completion: '```python\nimport time\ntime.sleep(5)\n```',
      config: { run_timeout: 0.5 },
    });
    expect(slow.accepted).toBe(false);
    expect(slow.tests[0]?.exec_info.run_result?.status).toBe('TimeLimitExceeded');

    const cpp =
      '```cpp\n#include <iostream>\nint main() { long a, b; std::cin >> a >> b; std::cout << a + b << std::endl; }\n```';
    const inCpp = await client.submit({
      dataset: 'common_oj',
      id: 'sum-ab',
      completion: cpp,
      config: { language: 'cpp', compile_timeout: 60 },
    });
    expect(inCpp.accepted).toBe(true);
    expect(inCpp.tests[0]?.exec_info.compile_result?.return_code).toBe(0);
    const compileTooShort = await client.submit({
      dataset: 'common_oj',
      id: 'sum-ab',
      completion: cpp,
      config: { language: 'cpp', compile_timeout: 0.01 },
    });
    expect(compileTooShort.accepted).toBe(false);
    expect(compileTooShort.tests[0]?.exec_info.compile_result?.status).toBe('TimeLimitExceeded');

    // A row sent with the request, as SandboxFusion's provided_data: nothing imported, judged the same way.
    const provided = await client.submit({
      dataset: 'humaneval',
      id: 'HumanEval/1',
      completion: '    return s[::-1]\n',
      config: {
        provided_data: {
          task_id: 'HumanEval/1',
          prompt: 'def rev(s: str) -> str:\n    """Reversed."""\n',
          test: 'def check(candidate):\n    assert candidate("ab") == "ba"\n',
          entry_point: 'rev',
        },
      },
    });
    expect(provided).toMatchObject({ id: 'HumanEval/1', accepted: true });
  });

  it('serves prompts from rows a request brings in provided_data, as SandboxFusion does', async () => {
    const rows = [
      {
        id: 7,
        content: 'Write double(n).',
        labels: { programming_language: 'python' },
        test: { code: 'assert double(2) == 4' },
      },
      {
        id: 'triple',
        content: 'Write triple(n).',
        labels: { programming_language: 'python' },
        test: { code: 'assert triple(2) == 6' },
      },
    ];
    // The dataset needs no import: the rows are the dataset.
    const config = { provided_data: rows };
    expect(await client.listIds({ dataset: 'my_eval', config })).toEqual([7, 'triple']);
    const prompts = await client.getPrompts({ dataset: 'my_eval', config });
    expect(prompts.map((entry) => entry.prompt)).toEqual(['Write double(n).', 'Write triple(n).']);
    const one = await client.getPromptById({
      dataset: 'my_eval',
      id: 'triple',
      config: { provided_data: rows[1] },
    });
    expect(one).toMatchObject({
      id: 'triple',
      prompt: 'Write triple(n).',
      labels: { programming_language: 'python' },
    });
    const post = async (path: string, body: object) => {
      const response = await app.inject({ method: 'POST', url: path, payload: body });
      return { status: response.statusCode, detail: response.json<{ detail: unknown }>().detail };
    };
    expect(await post('/get_prompts', { dataset: 'my_eval', config: { provided_data: rows[0] } })).toEqual({
      status: 400,
      detail: 'config.provided_data: expected a list of rows for /get_prompts',
    });
    const bad = await post('/list_ids', {
      dataset: 'my_eval',
      config: { provided_data: [rows[0], { id: 3 }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.detail).toMatch(/^config\.provided_data\[1\]: /);
  });

  it('answers a /submit that found the global limit saturated 429 with Retry-After, not 500', async () => {
    const env = readEnv({ ...database.env, FUSEBOX_MAX_CONCURRENCY: '1', FUSEBOX_LIMITER_TIMEOUT_S: '0.3' });
    const saturated = await buildServer(
      { env, prisma: opened.prisma, startedAt: new Date(), executor },
      { logger: false },
    );
    try {
      const holding = saturated.inject({
        method: 'POST',
        url: '/run_code',
        payload: { code: 'import time; time.sleep(3)', language: 'python' },
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      const submitted = await saturated.inject({
        method: 'POST',
        url: '/submit',
        payload: {
          dataset: 'autoeval',
          id: 11,
          completion: 'def remove_occ(s, ch):\n    return s',
          config: {},
        },
      });
      expect(submitted.statusCode, submitted.body).toBe(429);
      expect(submitted.headers['retry-after']).toBeTruthy();
      expect(submitted.json<{ detail: string }>().detail).toMatch(/FUSEBOX_LIMITER_TIMEOUT_S|permit|limit/i);
      expect((await holding).statusCode).toBe(200);
    } finally {
      await saturated.close();
    }
  });

  it('refuses config it cannot honour with a 400 naming the field', async () => {
    const submit = async (config: object, dataset = 'autoeval', id: number | string = 11) => {
      const response = await app.inject({
        method: 'POST',
        url: '/submit',
        payload: { dataset, id, completion: 'def remove_occ(s, ch):\n    return s', config },
      });
      return { status: response.statusCode, detail: response.json<{ detail: unknown }>().detail };
    };
    expect(await submit({ language: 'cpp' })).toEqual({
      status: 400,
      detail: 'config.language: problem "11" is judged by python test code, which cannot judge cpp',
    });
    expect((await submit({ extra: { repr_code: true } })).detail).toMatch(
      /^config\.extra\.repr_code: unknown option/,
    );
    expect((await submit({ custom_extract_logic: 'submit_code_blocks(cbs)' })).detail).toMatch(
      /^config\.custom_extract_logic: /,
    );
    expect((await submit({ run_timeout: 1e9 })).detail).toMatch(
      /^config\.run_timeout: expected seconds above 0 and at most \d+ \(FUSEBOX_MAX_TIMEOUT_S\), got 1000000000$/,
    );
    expect((await submit({ compile_timeout: 0 })).status).toBe(400);
    expect(await submit({ extra: { is_freeform: 'yes' } })).toEqual({
      status: 400,
      detail: 'config.extra.is_freeform: expected true or false, got "yes"',
    });
    expect((await submit({ dataset_type: 'LeetCodeDataset' })).detail).toMatch(
      /^config\.dataset_type: unknown evaluation class "LeetCodeDataset"/,
    );
    expect(await submit({ provided_data: [{ id: 12 }] }, 'autoeval', 12)).toEqual({
      status: 400,
      detail: 'config.provided_data: expected one row (an object) for /submit',
    });
    const badRow = await submit(
      { provided_data: { task_id: 'x', prompt: '', test: '', entry_point: '1' } },
      'humaneval',
      'HumanEval/9',
    );
    expect(badRow.status).toBe(400);
    expect(badRow.detail).toMatch(/^config\.provided_data: HumanEval row: /);
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
