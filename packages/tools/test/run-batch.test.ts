import { describe, expect, it } from 'vitest';
import { scriptedGenerate } from '../src/generate/scripted';
import { Gsm8kTool } from '../src/gsm8k-tool';
import { runBatch } from '../src/rollout/run-batch';
import { toolCall } from '@fusebox/testing/tool-call';
import { RecordingTool } from './helpers/recording-tool';

describe('runBatch', () => {
  it('batch case: 100 episodes of 3 scripted turns all COMPLETED, in request order, with progress', async () => {
    const requests = Array.from({ length: 100 }, (_, index) => ({
      requestId: `req-${index}`,
      messages: [{ role: 'user' as const, content: `What is ${index} + 1?` }],
      toolsKwargs: { calc_gsm8k_reward: { create_kwargs: { ground_truth: String(index + 1) } } },
    }));
    const progress: number[] = [];
    let generateCalls = 0;
    const script = scriptedGenerate(({ turn, messages }) => {
      generateCalls += 1;
      const n = Number(/What is (\d+)/.exec(messages[0]?.content ?? '')?.[1]);
      return (
        [
          toolCall('calc_gsm8k_reward', { answer: String(n) }),
          toolCall('calc_gsm8k_reward', { answer: String(n + 1) }),
          `#### ${n + 1}`,
        ][turn] ?? ''
      );
    });
    const trajectories = await runBatch(requests, {
      generate: script,
      tools: [new Gsm8kTool()],
      limits: { maxAssistantTurns: 5 },
      concurrency: 16,
      onProgress: ({ done, total }) => {
        expect(total).toBe(100);
        progress.push(done);
      },
    });
    expect(trajectories.map((trajectory) => trajectory.requestId)).toEqual(
      requests.map((request) => request.requestId),
    );
    expect(
      trajectories.every(
        (trajectory) => trajectory.state === 'COMPLETED' && trajectory.messages.length === 6,
      ),
    ).toBe(true);
    expect(trajectories.every((trajectory) => trajectory.score === 1)).toBe(true);
    expect(generateCalls).toBe(300);
    expect(progress).toEqual(Array.from({ length: 100 }, (_, index) => index + 1));
  });

  it('keeps at most `concurrency` episodes in flight and survives failing episodes', async () => {
    let inFlight = 0;
    let peak = 0;
    const tool = new RecordingTool('echo', { delayMs: 5 });
    const trajectories = await runBatch(
      Array.from({ length: 20 }, (_, index) => ({
        requestId: String(index),
        messages: [{ role: 'user' as const, content: String(index) }],
      })),
      {
        generate: async (request) => {
          inFlight += 1;
          peak = Math.max(peak, inFlight);
          await new Promise((resolve) => setTimeout(resolve, 5));
          inFlight -= 1;
          if (request.requestId === '7') throw new Error('bad prompt');
          return { content: request.turn === 0 ? toolCall('echo', {}) : 'done', finishReason: 'stop' };
        },
        tools: [tool],
        limits: { maxAssistantTurns: 3 },
        concurrency: 4,
      },
    );
    expect(peak).toBeLessThanOrEqual(4);
    expect(
      trajectories
        .filter((trajectory) => trajectory.state === 'FAILED')
        .map((trajectory) => trajectory.requestId),
    ).toEqual(['7']);
    expect(tool.events.filter((event) => event === 'release')).toHaveLength(20);
  });

  it('rejects with the abort reason and releases every started episode’s tools', async () => {
    const tool = new RecordingTool('slow', { delayMs: 10_000 });
    const controller = new AbortController();
    const batch = runBatch(
      Array.from({ length: 10 }, () => ({ messages: [{ role: 'user' as const, content: 'go' }] })),
      {
        generate: scriptedGenerate([toolCall('slow', {})]),
        tools: [tool],
        limits: { maxAssistantTurns: 2 },
        concurrency: 3,
        signal: controller.signal,
      },
    );
    setTimeout(() => controller.abort(new Error('stop the step')), 50);
    await expect(batch).rejects.toThrow('stop the step');
    const creates = tool.events.filter((event) => event.startsWith('create')).length;
    expect(creates).toBe(3);
    expect(tool.events.filter((event) => event === 'release')).toHaveLength(creates);
  });

  it('validates batch options up front', async () => {
    const options = { generate: scriptedGenerate(['x']), limits: { maxAssistantTurns: 1 } };
    await expect(runBatch([], { ...options, concurrency: 0 })).rejects.toThrow(/concurrency/);
  });
});
