import { once } from 'node:events';
import { type IncomingMessage, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresTestDatabase, type PostgresTestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CodingTask, type Gsm8kProblem, loadCodingTasks, loadGsm8kProblems } from '../src/demo-data';
import { type RunningServer, startServer } from '@fusebox/api/testing';
import { runDemoCli } from './demo-process';

interface ChatRequest {
  model: string;
  max_tokens?: number;
  messages: { role: string; content: string }[];
  tools?: { function: { name: string } }[];
}

/**
 * The one true external boundary of the demo: a model server. This fake speaks OpenAI's chat-completions
 * protocol as vLLM does. For a word problem it answers the first turn with a parsed `tool_calls` entry (vLLM
 * with a tool parser) running the problem's solution, and the second with `#### <what the tool printed>`, so a
 * right score proves the sandbox's output reached the model. For a coding task it writes the `<tool_call>`
 * into its text (a server without a tool parser), then says it is done.
 */
function fakeModelServer(problems: Gsm8kProblem[], tasks: CodingTask[]) {
  const requests: ChatRequest[] = [];
  const answer = (request: ChatRequest) => {
    const user = request.messages.find((message) => message.role === 'user')?.content ?? '';
    const tool = request.messages.filter((message) => message.role === 'tool').at(-1);
    const problem = problems.find((candidate) => user.startsWith(candidate.question));
    const task = tasks.find((candidate) => user === candidate.prompt);
    if (problem && !tool) {
      const call = { name: 'code_interpreter', arguments: JSON.stringify({ code: problem.code }) };
      return {
        message: {
          content: 'Let me compute it.',
          tool_calls: [{ id: 'call_1', type: 'function', function: call }],
        },
        finish_reason: 'tool_calls',
      };
    }
    if (problem && tool) {
      return {
        message: { content: `So the answer is:\n\n#### ${tool.content.trim()}` },
        finish_reason: 'stop',
      };
    }
    if (task && !tool) {
      const code = `${task.metadata.solution}\n\n${task.metadata.check}`;
      const text = `<tool_call>\n${JSON.stringify({ name: 'run_python', arguments: { code } })}\n</tool_call>`;
      return { message: { content: text }, finish_reason: 'stop' };
    }
    return { message: { content: 'It works, so I am done.' }, finish_reason: 'stop' };
  };
  const server: Server = createServer((incoming: IncomingMessage, response) => {
    let body = '';
    incoming.on('data', (chunk: Buffer) => (body += chunk.toString()));
    incoming.on('end', () => {
      const request = JSON.parse(body) as ChatRequest;
      requests.push(request);
      const choice = { index: 0, ...answer(request) };
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ id: 'chatcmpl-1', choices: [choice], usage: { completion_tokens: 12 } }));
    });
  });
  return { server, requests };
}

describe('fusebox demo with a model behind an OpenAI-compatible server', () => {
  let database: PostgresTestDatabase;
  let api: RunningServer;
  let model: ReturnType<typeof fakeModelServer>;
  let modelUrl: string;
  let dir: string;
  let problems: Gsm8kProblem[];

  beforeAll(async () => {
    [problems, database] = await Promise.all([loadGsm8kProblems(), createPostgresTestDatabase()]);
    model = fakeModelServer(problems, await loadCodingTasks());
    model.server.listen(0, '127.0.0.1');
    await once(model.server, 'listening');
    modelUrl = `http://127.0.0.1:${(model.server.address() as AddressInfo).port}/v1`;
    api = await startServer(database.env);
    dir = await mkdtemp(join(tmpdir(), 'fusebox-demo-model-'));
  });

  afterAll(async () => {
    model?.server.close();
    await api?.stop();
    await database?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const demo = (out: string, extra: string[]) =>
    runDemoCli(
      [
        '--api-url',
        api.url,
        '--model-url',
        modelUrl,
        '--model',
        'fake-qwen',
        '--steps',
        '1',
        '--out',
        join(dir, out),
        ...extra,
      ],
      database.env,
    );

  it("rolls out the model's turns: tools offered, tool calls run in the sandbox, results fed back, answers scored", async () => {
    model.requests.length = 0;
    const result = await demo('model', ['--episodes', '4', '--max-tokens', '256']);
    expect(result.stderr).not.toContain('unexpected error');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('model fake-qwen');

    const lines = (await readFile(join(dir, 'model', '1.jsonl'), 'utf8'))
      .trimEnd()
      .split('\n')
      .map(
        (line) => JSON.parse(line) as { score: number; data_source: string; case?: string; output: string },
      );
    expect(lines.map((line) => line.data_source).sort()).toEqual([
      'fusebox-demo/coding',
      'fusebox-demo/coding',
      'fusebox-demo/gsm8k',
      'fusebox-demo/gsm8k',
    ]);
    expect(lines.map((line) => line.score)).toEqual([1, 1, 1, 1]);
    expect(lines.every((line) => line.case === undefined)).toBe(true);

    // Two turns per episode, each asking for the named model with its token limit and the family's tools.
    expect(model.requests).toHaveLength(8);
    for (const request of model.requests) {
      expect(request).toMatchObject({ model: 'fake-qwen', max_tokens: 256 });
      const names = request.tools?.map((tool) => tool.function.name);
      expect([['code_interpreter', 'calc_gsm8k_reward'], ['run_python']]).toContainEqual(names);
    }
    // What the sandbox printed is what the model read in its second turn.
    const followUps = model.requests.filter((request) =>
      request.messages.some((message) => message.role === 'tool'),
    );
    expect(followUps).toHaveLength(4);
    for (const request of followUps.filter((item) => item.tools?.[0]?.function.name === 'code_interpreter')) {
      const question = request.messages.find((message) => message.role === 'user')?.content ?? '';
      const problem = problems.find((candidate) => question.startsWith(candidate.question));
      expect(request.messages.find((message) => message.role === 'tool')?.content).toBe(
        `${problem?.answer}\n`,
      );
    }
  });

  it('writes the tools into the system prompt for servers started without tool support', async () => {
    model.requests.length = 0;
    const result = await demo('prompted', [
      '--episodes',
      '1',
      '--tasks',
      'gsm8k',
      '--tools-in',
      'system-prompt',
    ]);
    expect(result.code).toBe(0);
    expect(model.requests.length).toBeGreaterThan(0);
    for (const request of model.requests) {
      expect(request.tools).toBeUndefined();
      const system = request.messages[0];
      expect(system?.role).toBe('system');
      expect(system?.content).toContain('# Tools');
      expect(system?.content).toContain('"name": "code_interpreter"');
    }
  });
});
