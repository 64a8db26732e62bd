import { describe, expect, it } from 'vitest';
import { parseToolCalls } from '../src/tool-call-parser';
import { SEED_ASSISTANT_TURNS } from '@fusebox/testing/seed-sample';

describe('parseToolCalls (hermes / qwen25)', () => {
  it("parses the seed sample's call, extra arguments included", () => {
    const { calls, content } = parseToolCalls(SEED_ASSISTANT_TURNS[0] ?? '');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ ok: true, name: 'code_interpreter', arguments: { executes: 'True' } });
    expect(calls[0]?.ok && calls[0].arguments.code).toContain('print(total_income_this_year)');
    expect(content).not.toContain('<tool_call>');
  });

  it('finds several calls in one message, in order, across newlines', () => {
    const text =
      'a<tool_call>\n{"name": "x", "arguments": {"n": 1}}\n</tool_call> b <tool_call>{"name": "y", "arguments": {}}</tool_call>';
    const { calls, content } = parseToolCalls(text, 'qwen25');
    expect(calls.map((call) => call.ok && call.name)).toEqual(['x', 'y']);
    expect(content).toBe('a b ');
  });

  it('returns a problem for each call verl would silently drop', () => {
    const text = [
      '<tool_call>{"name": "x", "arguments": {"a": 1}</tool_call>',
      '<tool_call>{"arguments": {}}</tool_call>',
      '<tool_call>{"name": "x", "arguments": "print(1)"}</tool_call>',
      '<tool_call>["x"]</tool_call>',
      '<tool_call>{"name": "x", "arguments": {}',
    ].join('\n');
    const problems = parseToolCalls(text).calls.map((call) => (call.ok ? 'ok' : call.problem));
    expect(problems).toEqual([
      expect.stringContaining('not valid JSON'),
      'the tool call has no "name" string',
      'the "arguments" of x must be a JSON object',
      expect.stringContaining('must be a JSON object'),
      'a <tool_call> was opened but never closed with </tool_call>',
    ]);
  });

  it('accepts a call without arguments as {}, and text without calls as none', () => {
    expect(parseToolCalls('<tool_call>{"name": "now"}</tool_call>').calls[0]).toMatchObject({
      ok: true,
      arguments: {},
    });
    expect(parseToolCalls('#### 42')).toEqual({ content: '#### 42', calls: [] });
  });

  it('reads a message the model filled with unclosed <tool_call>s in one pass', { timeout: 20_000 }, () => {
    // A lazy regex scanned to the end from each of them, quadratic in their number.
    const text = `a<tool_call>{"name": "x"}</tool_call>b${'<tool_call>'.repeat(200_000)}`;
    const { content, calls } = parseToolCalls(text);
    expect(content).toBe(`ab${'<tool_call>'.repeat(200_000)}`);
    expect(calls.map((call) => call.ok)).toEqual([true, false]);
  });
});
