import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineChannel } from '../src/line-channel';

describe('LineChannel', () => {
  it('delivers lines split across chunks, in order, and undefined once the stream ends', async () => {
    const stream = new PassThrough();
    const lines = new LineChannel(stream);
    stream.write('ready\nru');
    stream.write('n 1.5');
    stream.write('\n\nlast without newline');
    stream.end();
    expect(await lines.next()).toBe('ready');
    expect(await lines.next()).toBe('run 1.5');
    expect(await lines.next()).toBe('');
    expect(await lines.next()).toBeUndefined();
    expect(lines.overflowed).toBe(false);
  });

  it('keeps a multi-byte character split between chunks whole', async () => {
    const stream = new PassThrough();
    const lines = new LineChannel(stream);
    const bytes = Buffer.from('café\n');
    stream.write(bytes.subarray(0, 4));
    stream.write(bytes.subarray(4));
    expect(await lines.next()).toBe('café');
  });

  it('ends the channel at a line longer than its limit, even one sent a byte at a time', async () => {
    const stream = new PassThrough();
    const lines = new LineChannel(stream, { maxLineBytes: 1000 });
    stream.write('fine\n');
    for (let byte = 0; byte < 5000; byte += 1) stream.write('x');
    await new Promise((resolve) => setImmediate(resolve));
    expect(await lines.next()).toBe('fine');
    expect(await lines.next()).toBeUndefined();
    expect(lines.overflowed).toBe(true);
    stream.write('\nafter\n');
    expect(await lines.next()).toBeUndefined();
  });
});
