import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAIGenerate } from '../src/generate/openai';
import { Gsm8kTool } from '../src/gsm8k-tool';
import type { GenerateRequest } from '../src/rollout/generate';
import { runEpisode } from '../src/rollout/run-episode';
import { renderToolsSystemPrompt } from '../src/tools-system-prompt';
import { type FakeAnswer, chatCompletion, startFakeModelServer } from '@fusebox/testing/fake-model-server';

const tool = new Gsm8kTool();
const request: GenerateRequest = {
  requestId: 'r1',
  turn: 0,
  messages: [
    { role: 'system', content: 'You are a math expert.' },
    { role: 'user', content: 'What is 6 * 7?' },
  ],
  tools: [tool.schema],
};
const signal = new AbortController().signal;

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function server(answer: (body: Record<string, unknown>, index: number) => FakeAnswer) {
  const fake = await startFakeModelServer(answer);
  close = fake.close;
  return fake;
}

describe('createOpenAIGenerate', () => {
  it('posts a chat completion with model, sampling, messages and tools, and returns the text', async () => {
    const fake = await server(() => ({ body: chatCompletion('#### 42', 'stop', { completionTokens: 5 }) }));
    const generate = createOpenAIGenerate({
      baseUrl: fake.baseUrl,
      model: 'qwen',
      apiKey: 'k',
      sampling: { temperature: 0.7, max_tokens: 64 },
    });
    expect(await generate(request, { signal })).toEqual({
      content: '#### 42',
      finishReason: 'stop',
      completionTokens: 5,
    });
    const [sent] = fake.requests;
    expect(sent?.url).toBe('/v1/chat/completions');
    expect(sent?.headers.authorization).toBe('Bearer k');
    expect(sent?.body).toMatchObject({
      model: 'qwen',
      temperature: 0.7,
      max_tokens: 64,
      messages: request.messages,
    });
    expect((sent?.body.tools as { function: { name: string } }[])[0]?.function.name).toBe(
      'calc_gsm8k_reward',
    );
  });

  it('writes server-parsed tool calls back as <tool_call> text, so the driver runs them', async () => {
    const fake = await server((_, index) =>
      index === 0
        ? {
            body: chatCompletion('Checking.', 'tool_calls', {
              tool_calls: [{ name: 'calc_gsm8k_reward', arguments: '{"answer": "42"}' }],
            }),
          }
        : { body: chatCompletion('#### 42') },
    );
    const generate = createOpenAIGenerate({ baseUrl: fake.baseUrl, model: 'qwen' });
    const trajectory = await runEpisode(
      {
        messages: [...request.messages],
        toolsKwargs: { calc_gsm8k_reward: { create_kwargs: { ground_truth: '42' } } },
      },
      { generate, tools: [tool], limits: { maxAssistantTurns: 4 } },
    );
    expect(trajectory.messages[2]?.content).toBe(
      'Checking.\n<tool_call>\n{"name": "calc_gsm8k_reward", "arguments": {"answer": "42"}}\n</tool_call>',
    );
    expect(trajectory.messages[3]).toEqual({
      role: 'tool',
      content: "Current parsed answer='42' reward=1.0",
    });
    expect(trajectory.state).toBe('COMPLETED');
    // the second request carries the whole conversation back
    expect((fake.requests[1]?.body.messages as unknown[]).length).toBe(4);
  });

  it('retries a 503 and a dropped connection, then succeeds', async () => {
    const fake = await server((_, index) =>
      index === 0
        ? { status: 503, body: { error: 'loading' } }
        : index === 1
          ? 'drop'
          : { body: chatCompletion('ok') },
    );
    const generate = createOpenAIGenerate({ baseUrl: fake.baseUrl, model: 'qwen', retryDelayMs: 10 });
    expect((await generate(request, { signal })).content).toBe('ok');
    expect(fake.requests).toHaveLength(3);
  });

  it('honours Retry-After on 429', async () => {
    const fake = await server((_, index) =>
      index === 0 ? { status: 429, headers: { 'retry-after': '0' } } : { body: chatCompletion('ok') },
    );
    const generate = createOpenAIGenerate({ baseUrl: fake.baseUrl, model: 'qwen', retryDelayMs: 60_000 });
    expect((await generate(request, { signal })).content).toBe('ok');
  });

  it('does not retry a 400, and says what the server answered', async () => {
    const fake = await server(() => ({ status: 400, body: { error: { message: 'max_tokens too large' } } }));
    const generate = createOpenAIGenerate({ baseUrl: fake.baseUrl, model: 'qwen', retryDelayMs: 10 });
    await expect(generate(request, { signal })).rejects.toMatchObject({
      code: 'FUSEBOX_TOOLS_GENERATE',
      status: 400,
      attempts: 1,
      message: expect.stringContaining('max_tokens too large') as string,
    });
    expect(fake.requests).toHaveLength(1);
  });

  it('gives up after the retries with the last error, and times out slow answers', async () => {
    const fake = await server(() => ({ status: 200, body: chatCompletion('late'), delayMs: 2_000 }));
    const generate = createOpenAIGenerate({
      baseUrl: fake.baseUrl,
      model: 'qwen',
      timeoutMs: 100,
      retries: 1,
      retryDelayMs: 10,
    });
    await expect(generate(request, { signal })).rejects.toMatchObject({
      status: null,
      attempts: 2,
      message: expect.stringContaining('no answer within 100 ms') as string,
    });
  });

  it('maps length to a truncated episode', async () => {
    const fake = await server(() => ({ body: chatCompletion('a very long', 'length') }));
    const trajectory = await runEpisode(
      { messages: [...request.messages] },
      {
        generate: createOpenAIGenerate({ baseUrl: fake.baseUrl, model: 'q' }),
        limits: { maxAssistantTurns: 2 },
      },
    );
    expect(trajectory).toMatchObject({ state: 'TRUNCATED', finishReason: 'length' });
  });

  it('can write the # Tools block into the system prompt for servers without tool support', async () => {
    const fake = await server(() => ({ body: chatCompletion('ok') }));
    await createOpenAIGenerate({ baseUrl: fake.baseUrl, model: 'q', toolsIn: 'system-prompt' })(request, {
      signal,
    });
    const body = fake.requests[0]?.body as { messages: { role: string; content: string }[]; tools?: unknown };
    expect(body.tools).toBeUndefined();
    expect(body.messages[0]?.content).toBe(`You are a math expert.\n\n${renderToolsSystemPrompt([tool])}`);
    expect(body.messages).toHaveLength(2);
  });

  it('rejects with the abort reason when the episode is aborted mid-request', async () => {
    const fake = await server(() => ({ body: chatCompletion('late'), delayMs: 5_000 }));
    const controller = new AbortController();
    const pending = createOpenAIGenerate({ baseUrl: fake.baseUrl, model: 'q' })(request, {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error('cancelled')), 50);
    await expect(pending).rejects.toThrow('cancelled');
  });

  it('validates its options up front', () => {
    expect(() => createOpenAIGenerate({ baseUrl: 'localhost:8000', model: 'q' })).toThrow(TypeError);
    expect(() => createOpenAIGenerate({ baseUrl: 'http://127.0.0.1:1/v1', model: '' })).toThrow(/model/);
    expect(() => createOpenAIGenerate({ baseUrl: 'http://127.0.0.1:1/v1', model: 'q', retries: -1 })).toThrow(
      /retries/,
    );
  });
});
