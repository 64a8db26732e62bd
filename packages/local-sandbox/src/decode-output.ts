import { isUtf8 } from 'node:buffer';

interface Utf8Error {
  start: number;
  end: number;
  reason: 'invalid start byte' | 'invalid continuation byte' | 'unexpected end of data';
}

/** The range CPython allows for the second byte after a given lead byte (it rejects overlongs and surrogates). */
function secondByteRange(lead: number): [number, number] {
  if (lead === 0xe0) return [0xa0, 0xbf];
  if (lead === 0xed) return [0x80, 0x9f];
  if (lead === 0xf0) return [0x90, 0xbf];
  if (lead === 0xf4) return [0x80, 0x8f];
  return [0x80, 0xbf];
}

/** Finds the first invalid sequence the way CPython's UTF-8 decoder reports it (start, end and reason). */
function firstUtf8Error(bytes: Uint8Array): Utf8Error | undefined {
  let index = 0;
  while (index < bytes.length) {
    const lead = bytes[index] as number;
    if (lead < 0x80) {
      index += 1;
      continue;
    }
    const length =
      lead >= 0xc2 && lead <= 0xdf
        ? 2
        : lead >= 0xe0 && lead <= 0xef
          ? 3
          : lead >= 0xf0 && lead <= 0xf4
            ? 4
            : 0;
    if (length === 0) return { start: index, end: index + 1, reason: 'invalid start byte' };
    for (let offset = 1; offset < length; offset += 1) {
      const byte = bytes[index + offset];
      if (byte === undefined) return { start: index, end: bytes.length, reason: 'unexpected end of data' };
      const [low, high] = offset === 1 ? secondByteRange(lead) : [0x80, 0xbf];
      if (byte < low || byte > high)
        return { start: index, end: index + offset, reason: 'invalid continuation byte' };
    }
    index += length;
  }
  return undefined;
}

/**
 * Decodes process output as SandboxFusion does with Python's `bytes.decode()`: valid UTF-8 becomes text (a BOM
 * is kept), anything else becomes `"[DecodeError] <Python's UnicodeDecodeError message>"`.
 *
 * @example
 * decodeOutput(Buffer.from([0xff])); // "[DecodeError] 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"
 */
export function decodeOutput(bytes: Buffer): string {
  if (isUtf8(bytes)) return bytes.toString('utf8');
  const error = firstUtf8Error(bytes);
  if (!error) return bytes.toString('utf8');
  const where =
    error.end - error.start === 1
      ? `byte 0x${(bytes[error.start] as number).toString(16).padStart(2, '0')} in position ${error.start}`
      : `bytes in position ${error.start}-${error.end - 1}`;
  return `[DecodeError] 'utf-8' codec can't decode ${where}: ${error.reason}`;
}

/**
 * The longest prefix of `bytes` that does not end inside a multi-byte character, so cutting output at a byte
 * limit never turns valid UTF-8 into a decode error.
 *
 * @example
 * withoutPartialCharacter(Buffer.from('é').subarray(0, 1)).length; // 0
 */
export function withoutPartialCharacter(bytes: Buffer): Buffer {
  for (let back = 1; back <= Math.min(3, bytes.length); back += 1) {
    const byte = bytes[bytes.length - back] as number;
    if (byte < 0x80) return bytes;
    if (byte >= 0xc0) {
      const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
      return length > back ? bytes.subarray(0, bytes.length - back) : bytes;
    }
  }
  return bytes;
}
