import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CappedOutput } from '../src/capped-output';
import { decodeOutput } from '../src/decode-output';

/** What SandboxFusion (Python) reports for these bytes: the text, or "[DecodeError] <message>". */
function pythonDecode(bytes: Buffer): string {
  const script =
    'import sys\ntry:\n    sys.stdout.write(sys.stdin.buffer.read().decode())\n' +
    "except Exception as e:\n    sys.stdout.write(f'[DecodeError] {e}')";
  return execFileSync('/usr/bin/python3', ['-c', script], {
    input: bytes,
    env: { PYTHONIOENCODING: 'utf-8' },
  }).toString('utf8');
}

const CASES: [string, number[]][] = [
  ['ascii', [...Buffer.from('hello\n')]],
  ['BOM kept', [0xef, 0xbb, 0xbf, 0x41]],
  ['invalid start byte', [0x41, 0xff, 0x42]],
  ['lone continuation byte', [0x80]],
  ['overlong lead', [0xc0, 0xaf]],
  ['truncated at end, 2 of 3', [0x41, 0xe4, 0xb8]],
  ['truncated at end, 1 of 4', [0xf0]],
  ['truncated at end, 3 of 4', [0xf0, 0x9f, 0x98]],
  ['bad continuation after 2 of 3', [0xe4, 0xb8, 0x41]],
  ['bad continuation after 1 of 2', [0xc3, 0x41]],
  ['surrogate', [0xed, 0xa0, 0x80]],
  ['overlong 3-byte', [0xe0, 0x80, 0x80]],
  ['above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
  ['invalid 2nd byte at end', [0xe0, 0x80]],
  ['valid multibyte then invalid', [...Buffer.from('é😀'), 0xfe]],
];

describe('decodeOutput', () => {
  it.each(CASES)('reports %s exactly as Python does', (_name, bytes) => {
    const buffer = Buffer.from(bytes);
    expect(decodeOutput(buffer)).toBe(pythonDecode(buffer));
  });
});

describe('CappedOutput', () => {
  it('keeps output under the limit as is', () => {
    const output = new CappedOutput(16);
    output.push(Buffer.from('hello '));
    output.push(Buffer.from('world\n'));
    expect(output.truncated).toBe(false);
    expect(output.text()).toBe('hello world\n');
  });

  it('cuts at a character boundary and says how much was dropped', () => {
    const output = new CappedOutput(4);
    output.push(Buffer.from('ab€cd'));
    output.push(Buffer.from('more'));
    expect(output.truncated).toBe(true);
    // 'ab' and two of the three bytes of '€' fit; the partial character is dropped, not turned into a DecodeError.
    expect(output.text()).toBe('ab\n[Fusebox: output truncated: 9 of 11 bytes dropped (limit 4 bytes)]\n');
  });
});
