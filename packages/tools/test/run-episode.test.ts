import { describe, expect, it } from 'vitest';
import { scriptedGenerate } from '../src/generate/scripted';
import { Gsm8kTool } from '../src/gsm8k-tool';
import type { Generate } from '../src/rollout/generate';
import { runEpisode } from '../src/rollout/run-episode';
import { toolCall } from '@fusebox/testing/tool-call';
import { RecordingTool } from './helpers/recording-tool';

const user = { role: 'user' as const, content: 'What is 6 * 7?' };

function counting(generate: Generate): Generate & { calls: number } {
  const wrapped = Object.assign(
    (request: Parameters<Generate>[0], options: Parameters<Generate>[1]) => {
      wrapped.calls += 1;
      return generate(request, options);
    },
    { calls: 0 },
  );
  return wrapped;
}

describe('runEpisode', () => {
  it('creates the request: prompt kept, a verl-style hex id, the tools offered to the model', async () => {
    const tool = new Gsm8kTool();
    let seen: Parameters<Generate>[0] | undefined;
    const trajectory = await runEpisode(
      { messages: [{ role: 'system', content: 'Be brief.' }, user] },
      {
        generate: (request) => {
          seen = request;
          return Promise.resolve({ content: '#### 42', finishReason: 'stop' });
        },
        tools: [tool],
        limits: { maxAssistantTurns: 3 },
      },
    );
    expect(trajectory.requestId).toMatch(/^[0-9a-f]{32}$/);
    expect(trajectory.promptMessages).toBe(2);
    expect(seen?.turn).toBe(0);
    expect(seen?.tools.map((schema) => schema.function.name)).toEqual(['calc_gsm8k_reward']);
    expect(trajectory.transitions).toEqual(['PENDING', 'RUNNING', 'COMPLETED']);
    expect(trajectory.finishReason).toBe('stop');
  });

  it('over-size case: the engine stops on length and the episode ends with exactly [user, assistant]', async () => {
    const generate = counting(
      scriptedGenerate([{ content: toolCall('calc_gsm8k_reward', { answer: '1' }), finishReason: 'length' }]),
    );
    const trajectory = await runEpisode(
      { messages: [user] },
      { generate, tools: [new Gsm8kTool()], limits: { maxAssistantTurns: 1 } },
    );
    expect(trajectory.state).toBe('TRUNCATED');
    expect(trajectory.finishReason).toBe('length');
    expect(trajectory.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(trajectory.toolCalls).toEqual([]);
    expect(generate.calls).toBe(1);
  });

  it('basic tool-call case: tool_calls, tool_calls, stop → COMPLETED after 3 generate calls and 6 messages', async () => {
    const generate = counting(
      scriptedGenerate([
        `Let me check.\n${toolCall('calc_gsm8k_reward', { answer: '41' })}`,
        toolCall('calc_gsm8k_reward', { answer: '42' }),
        'The answer is\n#### 42',
      ]),
    );
    const trajectory = await runEpisode(
      { messages: [user], toolsKwargs: { calc_gsm8k_reward: { create_kwargs: { ground_truth: '42' } } } },
      { generate, tools: [new Gsm8kTool()], limits: { maxAssistantTurns: 5 } },
    );
    expect(trajectory.state).toBe('COMPLETED');
    expect(generate.calls).toBe(3);
    expect(trajectory.messages).toHaveLength(6);
    expect(
      trajectory.messages.filter((message) => message.role === 'tool').map((message) => message.content),
    ).toEqual(["Current parsed answer='41' reward=0.0", "Current parsed answer='42' reward=1.0"]);
    expect(trajectory.transitions).toEqual([
      'PENDING',
      'RUNNING',
      'TOOL_CALLING',
      'RUNNING',
      'TOOL_CALLING',
      'RUNNING',
      'COMPLETED',
    ]);
    expect(trajectory.rewards).toEqual({ tools: { calc_gsm8k_reward: 1 }, steps: [-0.05, 0] });
    expect(trajectory.score).toBe(1);
    expect(trajectory.turns).toEqual({ assistant: 3, user: 2 });
    expect(trajectory.toolCalls.map((call) => [call.turn, call.status])).toEqual([
      [0, 'ok'],
      [1, 'ok'],
    ]);
  });

  it('tells the model what was wrong with malformed and unknown calls, counts them, and goes on', async () => {
    const tool = new RecordingTool('echo');
    const trajectory = await runEpisode(
      { messages: [user] },
      {
        generate: scriptedGenerate([
          `<tool_call>{"name": "echo", "arguments": {"text": "hi"</tool_call>\n${toolCall('search', { q: 'x' })}\n<tool_call>{"arguments": {}}</tool_call>`,
          'done',
        ]),
        tools: [tool],
        limits: { maxAssistantTurns: 5 },
      },
    );
    const replies = trajectory.messages
      .filter((message) => message.role === 'tool')
      .map((message) => message.content);
    expect(replies[0]).toMatch(/^Error: the tool call is not valid JSON .*Write each call as <tool_call>/);
    expect(replies[1]).toBe('Error: there is no tool named "search". Available tools: echo.');
    expect(replies[2]).toMatch(/^Error: the tool call has no "name" string\./);
    expect(trajectory.metrics).toEqual({ malformedToolCalls: 2, unknownToolCalls: 1, toolErrors: 0 });
    expect(trajectory.toolCalls.map((call) => call.status)).toEqual([
      'malformed',
      'unknown_tool',
      'malformed',
    ]);
    expect(trajectory.state).toBe('COMPLETED');
    expect(tool.events.filter((event) => event.startsWith('execute'))).toEqual([]);
  });

  it('runs the calls of one turn concurrently up to max_parallel_calls, answering in call order', async () => {
    for (const [maxParallelCalls, peak] of [
      [1, 1],
      [3, 3],
    ] as const) {
      const tool = new RecordingTool('slow', {
        delayMs: 50,
        answer: (parameters) => `n=${String(parameters.n)}`,
      });
      const calls = [1, 2, 3].map((n) => toolCall('slow', { n })).join('\n');
      const trajectory = await runEpisode(
        { messages: [user] },
        {
          generate: scriptedGenerate([calls, 'done']),
          tools: [tool],
          limits: { maxAssistantTurns: 3, maxParallelCalls },
        },
      );
      expect(tool.peakInFlight).toBe(peak);
      expect(trajectory.messages.slice(2, 5).map((message) => message.content)).toEqual([
        'n=1',
        'n=2',
        'n=3',
      ]);
    }
  });

  it('ends at max_assistant_turns without running that turn’s calls, as verl', async () => {
    const tool = new RecordingTool('echo');
    const trajectory = await runEpisode(
      { messages: [user] },
      {
        generate: scriptedGenerate(() => toolCall('echo', { text: 'again' })),
        tools: [tool],
        limits: { maxAssistantTurns: 2 },
      },
    );
    expect(trajectory).toMatchObject({
      state: 'COMPLETED',
      finishReason: 'max_assistant_turns',
      turns: { assistant: 2, user: 1 },
    });
    expect(tool.events.filter((event) => event.startsWith('execute'))).toHaveLength(1);
  });

  it('ends at max_user_turns after that many rounds of tool responses', async () => {
    const trajectory = await runEpisode(
      { messages: [user] },
      {
        generate: scriptedGenerate(() => toolCall('echo', {})),
        tools: [new RecordingTool('echo')],
        limits: { maxAssistantTurns: 10, maxUserTurns: 2 },
      },
    );
    expect(trajectory).toMatchObject({
      state: 'COMPLETED',
      finishReason: 'max_user_turns',
      turns: { assistant: 3, user: 2 },
    });
  });

  it('stops TRUNCATED on the token budget, with a pluggable tokenizer, dropping tool replies that overflow it', async () => {
    const words = { count: (text: string) => text.split(/\s+/).filter(Boolean).length };
    const tool = new RecordingTool('echo', { answer: () => 'one two three four five six' });
    const trajectory = await runEpisode(
      { messages: [user] },
      {
        generate: scriptedGenerate(() => toolCall('echo', {})),
        tools: [tool],
        tokenizer: words,
        limits: { maxResponseTokens: 10 },
      },
    );
    // turn 1: a 3-word call + a 6-word reply = 9; turn 2: 12 ≥ 10, so it ends on the assistant turn
    expect(trajectory).toMatchObject({ state: 'TRUNCATED', finishReason: 'length', responseTokens: 12 });
    expect(trajectory.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);

    const overflow = await runEpisode(
      { messages: [user] },
      {
        generate: scriptedGenerate(() => toolCall('echo', {})),
        tools: [tool],
        tokenizer: words,
        limits: { maxResponseTokens: 8 },
      },
    );
    expect(overflow.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(overflow.toolCalls).toHaveLength(1);
  });

  it('prefers the engine’s completion token count over the tokenizer', async () => {
    const trajectory = await runEpisode(
      { messages: [user] },
      {
        generate: scriptedGenerate([{ content: 'x', finishReason: 'stop', completionTokens: 7 }]),
        limits: { maxResponseTokens: 100 },
      },
    );
    expect(trajectory.responseTokens).toBe(7);
  });

  it('truncates long tool responses with verl’s markers and records it', async () => {
    const tool = new RecordingTool('big', { answer: () => 'x'.repeat(1000) });
    const trajectory = await runEpisode(
      { messages: [user] },
      {
        generate: scriptedGenerate([toolCall('big', {}), 'ok']),
        tools: [tool],
        limits: { maxAssistantTurns: 3, maxToolResponseLength: 20, toolResponseTruncateSide: 'right' },
      },
    );
    expect(trajectory.messages[2]?.content).toBe(`(truncated)...${'x'.repeat(20)}`);
    expect(trajectory.toolCalls[0]).toMatchObject({
      truncated: true,
      status: 'ok',
      reward: 0.5,
      metrics: { calls: 1 },
    });
  });

  it('reports a tool that throws as verl does and keeps going', async () => {
    const trajectory = await runEpisode(
      { messages: [user] },
      {
        generate: scriptedGenerate([toolCall('broken', {}), 'ok']),
        tools: [new RecordingTool('broken', { fail: 'disk full' })],
        limits: { maxAssistantTurns: 3 },
      },
    );
    expect(trajectory.messages[2]?.content).toBe('Error when executing tool: disk full');
    expect(trajectory.metrics.toolErrors).toBe(1);
    expect(trajectory.state).toBe('COMPLETED');
  });

  it('creates instances before the first turn and scores then releases them at the end', async () => {
    const tool = new RecordingTool('echo');
    await runEpisode(
      { messages: [user], toolsKwargs: { echo: { create_kwargs: { ground_truth: '7' } } } },
      {
        generate: scriptedGenerate([toolCall('echo', { a: 1 }), 'done']),
        tools: [tool],
        limits: { maxAssistantTurns: 3 },
      },
    );
    expect(tool.events).toEqual(['create {"ground_truth":"7"}', 'execute {"a":1}', 'calcReward', 'release']);
  });

  it('fails the episode when generate fails, still scoring and releasing the tools', async () => {
    const tool = new RecordingTool('echo');
    const trajectory = await runEpisode(
      { messages: [user] },
      {
        generate: () => Promise.reject(new Error('model server down')),
        tools: [tool],
        limits: { maxAssistantTurns: 3 },
      },
    );
    expect(trajectory).toMatchObject({
      state: 'FAILED',
      finishReason: 'error',
      error: { message: 'model server down' },
    });
    expect(tool.events.slice(-2)).toEqual(['calcReward', 'release']);
  });

  it('fails the episode, not the batch, when a policy returns the wrong shape', async () => {
    const generate = (() => Promise.resolve({ text: 'oops' })) as unknown as Generate;
    const trajectory = await runEpisode({ messages: [user] }, { generate, limits: { maxAssistantTurns: 2 } });
    expect(trajectory).toMatchObject({
      state: 'FAILED',
      error: { message: expect.stringContaining('{ content: string') as string },
    });
  });

  it('on abort, releases the tools then rejects with the signal’s reason', async () => {
    const tool = new RecordingTool('slow', { delayMs: 10_000 });
    const controller = new AbortController();
    const episode = runEpisode(
      { messages: [user] },
      {
        generate: scriptedGenerate([toolCall('slow', {})]),
        tools: [tool],
        limits: { maxAssistantTurns: 3 },
        signal: controller.signal,
      },
    );
    setTimeout(() => controller.abort(new Error('training step cancelled')), 50);
    await expect(episode).rejects.toThrow('training step cancelled');
    expect(tool.events.slice(-2)).toEqual(['calcReward', 'release']);
  });

  it('validates options up front', async () => {
    const generate = scriptedGenerate(['x']);
    await expect(runEpisode({ messages: [user] }, { generate })).rejects.toThrow(
      /maxAssistantTurns or limits.maxResponseTokens/,
    );
    await expect(
      runEpisode({ messages: [user] }, { generate, limits: { maxAssistantTurns: 0 } }),
    ).rejects.toThrow(TypeError);
    await expect(
      runEpisode(
        { messages: [user] },
        { generate, tools: [new Gsm8kTool(), new Gsm8kTool()], limits: { maxAssistantTurns: 1 } },
      ),
    ).rejects.toThrow(/unique tool names/);
  });
});
