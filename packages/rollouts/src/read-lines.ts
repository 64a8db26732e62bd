import { createReadStream } from 'node:fs';

/** One line of a file, without its newline, and where the file continues after it. */
export interface FileLine {
  text: string;
  /** Byte offset just past this line and its newline: where the next import resumes. */
  end: number;
  /** False for a last line with no newline after it: a writer may still be appending to it. */
  complete: boolean;
}

const NEWLINE = 0x0a;

/**
 * Reads a file's lines from byte offset `start`, tracking byte offsets exactly (a line's byte length is not
 * its string length once it holds non-ASCII text), so an import can resume mid-file.
 */
export async function* readLines(path: string, start: number): AsyncGenerator<FileLine> {
  let pending: Buffer[] = [];
  let offset = start;
  for await (const chunk of createReadStream(path, {
    start,
    highWaterMark: 1 << 20,
  }) as AsyncIterable<Buffer>) {
    let from = 0;
    for (let newline = chunk.indexOf(NEWLINE); newline >= 0; newline = chunk.indexOf(NEWLINE, from)) {
      const piece = chunk.subarray(from, newline);
      const bytes = pending.length > 0 ? Buffer.concat([...pending, piece]) : piece;
      pending = [];
      offset += bytes.length + 1;
      yield { text: stripCr(bytes.toString('utf8')), end: offset, complete: true };
      from = newline + 1;
    }
    if (from < chunk.length) pending.push(chunk.subarray(from));
  }
  if (pending.length > 0) {
    const bytes = Buffer.concat(pending);
    yield { text: stripCr(bytes.toString('utf8')), end: offset + bytes.length, complete: false };
  }
}

function stripCr(text: string): string {
  return text.endsWith('\r') ? text.slice(0, -1) : text;
}
