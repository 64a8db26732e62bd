import { describe, expect, it } from 'vitest';
import { parseJsonExact } from '@fusebox/input';
import { extractCode } from '../src/extract-code';

describe('which code an action runs', () => {
  it("takes the last block fenced in the task's language, by any of its names", () => {
    const content =
      'First:\n```python\nx = 1\n```\nthen a shell step:\n```bash\nls\n```\nfinally:\n```py\nprint(x)\n```\n';
    expect(extractCode(content, 'python')).toBe('print(x)\n');
    expect(extractCode(content, 'bash')).toBe('ls\n');
    // A pytest task's code is Python, and models fence it so.
    expect(extractCode(content, 'pytest')).toBe('print(x)\n');
    expect(extractCode('Here:\n```python\ndef f():', 'pytest')).toBe('def f():');
  });

  it('falls back to an untagged block, then to an unclosed block cut off at the end, then to the whole content', () => {
    expect(extractCode('```\nprint(1)\n```', 'python')).toBe('print(1)\n');
    expect(extractCode('Here:\n```python\nprint(1)\nprint(2', 'python')).toBe('print(1)\nprint(2');
    expect(extractCode('print(3)', 'python')).toBe('print(3)');
    // A block in another language only: the content as it is (and the run says what went wrong).
    expect(extractCode('```bash\nls\n```', 'python')).toBe('```bash\nls\n```');
  });

  it('reads Windows line endings and tilde fences', () => {
    expect(extractCode('```python\r\nprint(1)\r\n```\r\n', 'python')).toBe('print(1)\n');
    expect(extractCode('~~~python\nprint(1)\n~~~', 'python')).toBe('print(1)\n');
  });

  it('closes a fence only with the same fence, and reads blocks after one never closed', () => {
    expect(extractCode('````python\nprint(1)\n```\n````\n', 'python')).toBe('print(1)\n```\n');
    expect(extractCode('```python\nx = 1\n~~~python\nprint(2)\n~~~\n', 'python')).toBe('print(2)\n');
    expect(extractCode('```python\nx = 1\n~~~\nprint(2)\n~~~\n', 'python')).toBe('print(2)\n');
  });

  it("starts fence lines after a lone CR or U+2028 as well, as the rules' first regex did", () => {
    expect(extractCode('```python\r\r\nprint(1)\r\r\n```\r\r\n', 'python')).toBe('print(1)\r\n');
    expect(extractCode('```python\nprint(1)\n```\u2028', 'python')).toBe('print(1)\n');
  });

  it('reads an action the model filled with unclosed fences in one pass', { timeout: 20_000 }, () => {
    // The lazy regex this replaced scanned to the end from every unclosed fence: 10.8 s for 100 kB of them,
    // about a minute for this 250 kB, while the server's event loop (every other rollout) waited.
    const fences = '```x\n'.repeat(50_000);
    expect(extractCode(fences, 'python')).toBe(fences);
    expect(extractCode(`${fences}\`\`\`python\nprint(1)\n`, 'python')).toBe(
      `${fences}\`\`\`python\nprint(1)\n`,
    );
    // Openings on lines a CR starts, all waiting for the one newline at the end.
    const crFences = `${'```x\r'.repeat(50_000)}\n`;
    expect(extractCode(crFences, 'python')).toBe(crFences);
  });
});

describe('int64 ids in JSON bodies', () => {
  it('keeps integers beyond 2^53 exact as digits, and leaves strings and small numbers alone', () => {
    expect(
      parseJsonExact('{"sid": 5671949450826943757, "n": 12, "f": 1.5e300, "s": "12345678901234567890"}'),
    ).toEqual({
      sid: '5671949450826943757',
      n: 12,
      f: 1.5e300,
      s: '12345678901234567890',
    });
    expect(
      parseJsonExact('{"text": "a \\"quoted\\" 99999999999999999999 inside", "x": -9223372036854775807}'),
    ).toEqual({
      text: 'a "quoted" 99999999999999999999 inside',
      x: '-9223372036854775807',
    });
    expect(() => parseJsonExact('{"sid": 5671949450826943757')).toThrow(SyntaxError);
  });

  it('reads a body with a string of megabytes beside an int64 id (verl sends both in one action)', () => {
    const content = 'x'.repeat(12 * 1024 * 1024) + '\\"' + 'y'.repeat(1024);
    const body = JSON.stringify({ sid: 0, content }).replace('"sid":0', '"sid":5671949450826943757');
    expect(parseJsonExact(body)).toEqual({ sid: '5671949450826943757', content });
  });

  it('keeps the string scan in step at backslashes that end or double inside a string', () => {
    // Detection: each body holds a long digit run, so the slow path (the string loop) runs.
    expect(parseJsonExact('[12345678901234567890,"\\\\"]')).toEqual(['12345678901234567890', '\\']);
    expect(parseJsonExact('["\\\\\\"12345678901234567890"]')).toEqual(['\\"12345678901234567890']);
    expect(() => parseJsonExact('{"a":"12345678901234567890\\')).toThrow(SyntaxError);
    expect(() => parseJsonExact('{"a":"12345678901234567890\\"}')).toThrow(SyntaxError);
  });

  // Once a hole: the slow path quoted a long integer with a leading zero (not JSON) before JSON.parse saw it.
  it('rejects a long integer with leading zeros, as JSON.parse does', () => {
    expect((): unknown => JSON.parse('{"a": 01234567890123456789}')).toThrow(SyntaxError);
    expect(() => parseJsonExact('{"a": 01234567890123456789}')).toThrow(SyntaxError);
  });
});
