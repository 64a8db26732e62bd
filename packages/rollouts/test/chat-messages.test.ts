import { describe, expect, it } from 'vitest';
import { toolResponses } from '../src/chat-messages';

const user = (text: string) => toolResponses({ role: 'user', text });

describe("reading a user message's <tool_response> blocks", () => {
  it('takes each block without the newlines the template puts inside its tags', () => {
    expect(user('<tool_response>\n42\n</tool_response>\n<tool_response>x</tool_response>\n')).toEqual([
      '42',
      'x',
    ]);
    expect(user('<tool_response>\n</tool_response><tool_response>\n\n</tool_response>')).toEqual(['', '']);
    expect(user('<tool_response>\n\na\n\n</tool_response>')).toEqual(['\na\n']);
  });

  it('is no tool message when text outside the blocks is not blank, or a block is never closed', () => {
    expect(user('see <tool_response>42</tool_response>')).toBeNull();
    expect(user('<tool_response>42</tool_response> and more')).toBeNull();
    expect(user('<tool_response>42</tool_response><tool_response>cut')).toBeNull();
    expect(user('just a question')).toBeNull();
  });

  it('reads a response the model filled with unclosed blocks in one pass', { timeout: 20_000 }, () => {
    // `<tool_response>` is one token in Qwen's vocabulary. The lazy regex this replaced scanned to the end from
    // every unclosed block: 4 s for 32k of them, minutes for this; one pass takes milliseconds.
    expect(user('<tool_response>'.repeat(200_000))).toBeNull();
    expect(user(`${'<tool_response>ok</tool_response>'.repeat(100_000)}<tool_response>`)).toBeNull();
  });
});
