import { describe, expect, it } from 'vitest';
import { UnknownInstanceError } from '../src/errors/unknown-instance-error';
import { computeGsm8kScore, extractGsm8kSolution } from '../src/gsm8k-score';
import { Gsm8kTool } from '../src/gsm8k-tool';
import { SEED_SAMPLE } from '@fusebox/testing/seed-sample';

describe('gsm8k scoring (verl.utils.reward_score.gsm8k)', () => {
  it("scores the seed sample's final answer 220000.0 as 0 against 220000: exact string match", () => {
    expect(computeGsm8kScore(SEED_SAMPLE.output, '220000')).toEqual({ score: 0, parsed: '220000.0' });
    expect(computeGsm8kScore(SEED_SAMPLE.output, '220000.0').score).toBe(1);
    expect(SEED_SAMPLE.score).toBe(0);
  });

  it('strict mode needs "#### ", drops commas and takes the last match', () => {
    expect(extractGsm8kSolution('#### 1 then #### 1,234', 'strict')).toBe('1234');
    expect(extractGsm8kSolution('the answer is 72', 'strict')).toBeNull();
    expect(extractGsm8kSolution('#### -5', 'strict')).toBe('-5');
  });

  it('flexible mode takes the last number and skips a lone "."', () => {
    expect(extractGsm8kSolution('3 apples and 4 pears.', 'flexible')).toBe('4');
    expect(extractGsm8kSolution('it costs 1,200 .', 'flexible')).toBe('1,200');
    expect(extractGsm8kSolution('no digits', 'flexible')).toBeNull();
    // every match invalid: verl's loop ends on the first one
    expect(extractGsm8kSolution('. x .', 'flexible')).toBe('.');
  });

  it('only looks at the last 300 characters, counted as code points', () => {
    const answerFirst = `#### 42 ${'x'.repeat(300)}`;
    expect(extractGsm8kSolution(answerFirst, 'strict')).toBeNull();
    const emoji = `#### 42${'😀'.repeat(293)}`; // 300 code points, 593 UTF-16 units
    expect(extractGsm8kSolution(emoji, 'strict')).toBe('42');
  });

  it('gives 0 when nothing parses, format_score when wrong, score when right', () => {
    expect(computeGsm8kScore('nothing', '1')).toEqual({ score: 0, parsed: null });
    expect(computeGsm8kScore('#### 2', '1', { formatScore: 0.1 }).score).toBe(0.1);
    expect(computeGsm8kScore('#### 1', '1', { score: 2 }).score).toBe(2);
  });
});

describe('Gsm8kTool (calc_gsm8k_reward)', () => {
  it("answers verl's text and penalises answers that do not improve", async () => {
    const tool = new Gsm8kTool();
    const { instanceId } = await tool.create(undefined, { ground_truth: '220000' });

    const wrong = await tool.execute(instanceId, { answer: '220000.0' });
    expect(wrong.response.text).toBe("Current parsed answer='220000.0' reward=0.0");
    expect(wrong.reward).toBe(-0.05);

    const right = await tool.execute(instanceId, { answer: '220000' });
    expect(right.response.text).toBe("Current parsed answer='220000' reward=1.0");
    expect(right.reward).toBe(0);

    const again = await tool.execute(instanceId, { answer: '#### 220000' });
    expect(again.reward).toBe(-0.05);
    expect(await tool.calcReward(instanceId)).toBe(1);
    await tool.release(instanceId);
  });

  it('prints reward=0 (an int, as verl) when no number parses, and quotes like Python', async () => {
    const tool = new Gsm8kTool();
    const { instanceId } = await tool.create('fixed-id', { create_kwargs: { ground_truth: '3' } });
    expect(instanceId).toBe('fixed-id');
    const { response } = await tool.execute(instanceId, { answer: "it's three" });
    expect(response.text).toBe(`Current parsed answer="it's three" reward=0`);
    const numeric = await tool.execute(instanceId, { answer: 3 });
    expect(numeric.response.text).toBe("Current parsed answer='3' reward=1.0");
  });

  it('rejects unknown instances and double releases with a typed error', async () => {
    const tool = new Gsm8kTool();
    await expect(tool.execute('nope', { answer: '1' })).rejects.toBeInstanceOf(UnknownInstanceError);
    await expect(tool.calcReward('nope')).rejects.toMatchObject({
      code: 'FUSEBOX_TOOLS_UNKNOWN_INSTANCE',
      tool: 'calc_gsm8k_reward',
    });
    const { instanceId } = await tool.create();
    await tool.release(instanceId);
    await expect(tool.release(instanceId)).rejects.toThrow(/already released/);
  });
});
