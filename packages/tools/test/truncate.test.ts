import { describe, expect, it } from 'vitest';
import { truncateToolResponse } from '../src/truncate';

describe('truncateToolResponse (max_tool_response_length)', () => {
  const text = 'abcdefghijklmnopqrstuvwxyz';

  it('leaves text within the limit unchanged', () => {
    expect(truncateToolResponse(text, 26)).toEqual({ text, truncated: false });
    expect(truncateToolResponse('x'.repeat(256))).toEqual({ text: 'x'.repeat(256), truncated: false });
  });

  it('left keeps the head, right keeps the tail, middle keeps half of each, with verl markers', () => {
    expect(truncateToolResponse(text, 10, 'left').text).toBe('abcdefghij...(truncated)');
    expect(truncateToolResponse(text, 10, 'right').text).toBe('(truncated)...qrstuvwxyz');
    expect(truncateToolResponse(text, 10, 'middle').text).toBe('abcde...(truncated)...vwxyz');
    expect(truncateToolResponse(text, 10, 'middle').truncated).toBe(true);
  });

  it('defaults to verl: 256 characters, middle', () => {
    const long = `${'a'.repeat(200)}${'b'.repeat(200)}`;
    expect(truncateToolResponse(long).text).toBe(`${'a'.repeat(128)}...(truncated)...${'b'.repeat(128)}`);
  });

  it('counts characters as Python does, never splitting an emoji', () => {
    const emoji = '😀'.repeat(6);
    expect(truncateToolResponse(emoji, 6)).toEqual({ text: emoji, truncated: false });
    expect(truncateToolResponse(emoji, 4, 'left').text).toBe('😀😀😀😀...(truncated)');
  });

  it('matches Python slicing at the edges: middle with a length of 1 keeps the whole text after the marker', () => {
    expect(truncateToolResponse('abc', 1, 'middle').text).toBe('...(truncated)...abc');
    expect(() => truncateToolResponse('abc', -1)).toThrow(TypeError);
  });
});
