import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { assistantBlocks, parseConversation, readToolCall } from '~/rollouts/chat-turns';

/** The sample rollout of verl's "Sandbox Fusion Tool Integration" doc (seed 000), as its dump holds it. */
const seed = JSON.parse(readFileSync(new URL('./fixtures/seed-sample.json', import.meta.url), 'utf8')) as {
  input: string;
  output: string;
};

describe('parsing a dump sample into chat turns', () => {
  const turns = parseConversation(seed.input, seed.output);

  it("reads the seed's sample as system, user, then two assistant turns, the tool's answer under its call", () => {
    expect(turns.map((turn) => [turn.role, turn.part])).toEqual([
      ['system', 'input'],
      ['user', 'input'],
      ['assistant', 'output'],
      ['assistant', 'output'],
    ]);
    expect(turns[0]!.text).toMatch(/^You are a math expert\./);
    expect(turns[0]!.text).toContain('<tools>');
    expect(turns[1]!.text).toMatch(/^John gets a bonus/);
    expect(turns[1]!.text).toMatch(/after `####`\.$/);
  });

  it('keeps the tool-call example in the system prompt as text', () => {
    expect(turns[0]!.blocks).toEqual([{ kind: 'text', text: turns[0]!.text }]);
  });

  it('ends the unclosed <think> at the tool call, and decodes the call with its code and response', () => {
    const [think, call] = turns[2]!.blocks;
    expect(think).toMatchObject({ kind: 'think', closed: false });
    expect(think?.kind === 'think' && think.text).toMatch(/^Okay, let's see\..*to ensure accuracy\.$/s);
    expect(call).toMatchObject({ kind: 'call', response: '220000.0\n' });
    if (call?.kind !== 'call') throw new Error('expected a tool call');
    expect(call.call.name).toBe('code_interpreter');
    expect(call.call.problem).toBeNull();
    expect(call.call.arguments).toMatchObject({ executes: 'True' });
    expect(call.call.code).toBe(
      'total_pay_this_year = 200000\nbonus_percentage = 10 / 100\nbonus_this_year = total_pay_this_year * bonus_percentage\ntotal_income_this_year = total_pay_this_year + bonus_this_year\nprint(total_income_this_year)',
    );
  });

  it('closes the second <think> and keeps the final answer as text', () => {
    expect(turns[3]!.blocks.map((block) => block.kind)).toEqual(['think', 'text']);
    expect(turns[3]!.blocks[1]).toEqual({ kind: 'text', text: '#### 220000.0' });
  });
});

describe('the shapes other templates produce', () => {
  it('attaches <tool_response> blocks in a user message to calls in order', () => {
    const output =
      'assistant\n<tool_call>\n{"name": "a", "arguments": {}}\n</tool_call>\n<tool_call>\n{"name": "b", "arguments": {}}\n</tool_call>\n' +
      'user\n<tool_response>\nfirst\n</tool_response>\n<tool_response>\nsecond\n</tool_response>\nassistant\ndone';
    const turns = parseConversation('user\nhi\nassistant\n', output);
    expect(turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'assistant']);
    expect(
      turns[1]!.blocks.map((block) => (block.kind === 'call' ? [block.call.name, block.response] : null)),
    ).toEqual([
      ['a', 'first'],
      ['b', 'second'],
    ]);
  });

  it('treats text before a lone </think> as thinking (the prompt opened it)', () => {
    expect(assistantBlocks('weighing it up\n</think>\n\nThe answer is 4.')).toEqual([
      { kind: 'think', text: 'weighing it up', closed: true },
      { kind: 'text', text: 'The answer is 4.' },
    ]);
  });

  it('reports a broken or unclosed tool call instead of hiding it', () => {
    // The same words whichever engine parses it: the server's text must be the browser's for hydration.
    for (const raw of ['{"name": "x", "arguments": ', '{"name": x}', '{"a":1,}'])
      expect(readToolCall(raw, true).problem).toBe('not valid JSON');
    const [block] = assistantBlocks('<tool_call>\n{"name": "x", "arguments": {"code": "1"}}');
    expect(block).toMatchObject({
      kind: 'call',
      call: { name: 'x', code: '1', problem: 'this <tool_call> is never closed' },
    });
  });

  it('cuts a response of thousands of tool calls, or of newlines, in one pass', { timeout: 20_000 }, () => {
    // Searching the rest for a missing `<think>` at each call, and `/\n+$/`: the old code took 43 s for these.
    const calls = '<tool_call>{"name": "x", "arguments": {}}</tool_call>\n'.repeat(20_000);
    expect(assistantBlocks(`${calls}done`).map((block) => block.kind)).toEqual([
      ...Array<string>(20_000).fill('call'),
      'text',
    ]);
    expect(assistantBlocks(`a${'\n'.repeat(200_000)}b\n\n`)).toEqual([
      { kind: 'text', text: `a${'\n'.repeat(200_000)}b` },
    ]);
  });

  it('decodes arguments that were JSON-encoded twice', () => {
    expect(
      readToolCall('{"name": "code_interpreter", "arguments": "{\\"code\\": \\"print(1)\\"}"}', true).code,
    ).toBe('print(1)');
  });

  it('shows a response with no call before it as a tool turn of its own', () => {
    const turns = parseConversation('user\nq\nassistant\n', 'assistant\nno call here\ntool\norphan output');
    expect(turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'tool']);
  });
});
