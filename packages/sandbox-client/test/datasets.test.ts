import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxClient, type SandboxClient } from '@fusebox/sandbox-client';
import { readContractFixtures } from '@fusebox/testing/contract-fixtures';
import { sendJson, startTestServer, type TestServer } from './test-server';

const passingRun: unknown = JSON.parse(
  readContractFixtures().find((f) => f.name === 'python_hello')!.responseText,
);
const evalResult = {
  id: 11,
  accepted: true,
  extracted_code: 'print("Hello, world!")',
  full_code: null,
  test_code: null,
  tests: [{ passed: true, exec_info: passingRun, test_info: null }],
  extracted_type: 'fenced',
  extra: null,
};
const ANSWERS: Record<string, unknown> = {
  '/list_datasets': ['mbpp', 'humaneval_python'],
  '/list_ids': [11, 'HumanEval/0'],
  '/get_prompts': [{ id: 11, prompt: 'Write a function.' }],
  '/get_prompt_by_id': {
    id: 11,
    prompt: [{ role: 'user', content: 'Write a function.' }],
    labels: { difficulty: 1 },
  },
  '/submit': evalResult,
  '/get_metrics': { pass_at_1: 0.5 },
  '/get_metrics_function': { function: null },
};

let server: TestServer;
let client: SandboxClient;
beforeAll(async () => {
  // Plays a SandboxFusion dataset service, answering each route with data in its shape.
  server = await startTestServer((request, response) => sendJson(response, 200, ANSWERS[request.path]));
  client = createSandboxClient({ endpoint: 'http://127.0.0.1:9', datasetEndpoint: server.url });
});
afterAll(async () => {
  await client.close();
  await server.close();
});

function lastRequest() {
  const request = server.requests.at(-1)!;
  return {
    method: request.method,
    path: request.path,
    body: request.body ? (JSON.parse(request.body) as unknown) : undefined,
  };
}

describe('dataset routes', () => {
  it('lists datasets', async () => {
    await expect(client.listDatasets()).resolves.toEqual(['mbpp', 'humaneval_python']);
    expect(lastRequest()).toEqual({ method: 'GET', path: '/list_datasets', body: undefined });
  });

  it('lists ids, integers and strings alike', async () => {
    const page = { dataset: 'mbpp', config: {}, offset: 10, limit: 2 };
    await expect(client.listIds(page)).resolves.toEqual([11, 'HumanEval/0']);
    expect(lastRequest()).toEqual({ method: 'POST', path: '/list_ids', body: page });
  });

  it('gets prompts, with labels defaulting to {}', async () => {
    await expect(client.getPrompts({ dataset: 'mbpp', config: { language: 'python' } })).resolves.toEqual([
      { id: 11, prompt: 'Write a function.', labels: {} },
    ]);
    expect(lastRequest()).toMatchObject({ path: '/get_prompts', body: { config: { language: 'python' } } });
  });

  it('gets one prompt as chat messages', async () => {
    const prompt = await client.getPromptById({ dataset: 'mbpp', config: {}, id: 11 });
    expect(prompt.prompt).toEqual([{ role: 'user', content: 'Write a function.' }]);
    expect(lastRequest()).toEqual({
      method: 'POST',
      path: '/get_prompt_by_id',
      body: { dataset: 'mbpp', config: {}, id: 11 },
    });
  });

  it('submits a completion and returns the verdict with each test’s run', async () => {
    const submission = {
      dataset: 'mbpp',
      id: 11,
      completion: '```python\nprint("Hello, world!")\n```',
      config: {},
    };
    const result = await client.submit(submission);
    expect(result).toEqual(evalResult);
    expect(result.tests[0]?.exec_info.run_result?.stdout).toBe('Hello, world!\n');
    expect(lastRequest()).toEqual({ method: 'POST', path: '/submit', body: submission });
  });

  it('gets metrics and the metrics function', async () => {
    await expect(
      client.getMetrics({ dataset: 'mbpp', config: {}, results: [evalResult as never] }),
    ).resolves.toEqual({
      pass_at_1: 0.5,
    });
    expect(lastRequest()).toMatchObject({
      path: '/get_metrics',
      body: { results: [{ id: 11, accepted: true }] },
    });
    await expect(client.getMetricsFunction({ dataset: 'mbpp', config: {} })).resolves.toEqual({
      function: null,
    });
    expect(lastRequest().path).toBe('/get_metrics_function');
  });
});
