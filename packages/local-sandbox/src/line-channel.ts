import type { Readable } from 'node:stream';

/** Longest line a channel accepts unless told otherwise: the driver's and spawner's lines are a few dozen bytes. */
const DEFAULT_MAX_LINE_BYTES = 64 * 1024;

/**
 * The lines a process writes on a pipe, read in order. `next()` resolves with the next line, or undefined once
 * the pipe is closed. The writer may be hostile, so a line is capped at `maxLineBytes` (a longer one ends the
 * channel: `overflowed` is then true and the caller should kill the writer) and each byte is scanned once:
 * a line that arrives a byte at a time costs linear work, not quadratic.
 */
export class LineChannel {
  readonly #lines: string[] = [];
  readonly #maxLineBytes: number;
  /** The pieces of the line still being received, and their total length. */
  #partial: Buffer[] = [];
  #partialBytes = 0;
  #ended = false;
  #overflowed = false;
  #waiter: ((line: string | undefined) => void) | undefined;

  constructor(stream: Readable, { maxLineBytes = DEFAULT_MAX_LINE_BYTES }: { maxLineBytes?: number } = {}) {
    this.#maxLineBytes = maxLineBytes;
    stream.on('data', (chunk: Buffer) => this.#receive(chunk));
    const end = () => this.#end();
    stream.on('end', end);
    stream.on('close', end);
    stream.on('error', end);
  }

  /** True once a line longer than the limit arrived: the channel ended there. */
  get overflowed(): boolean {
    return this.#overflowed;
  }

  next(): Promise<string | undefined> {
    const line = this.#lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.#ended) return Promise.resolve(undefined);
    return new Promise((resolve) => (this.#waiter = resolve));
  }

  #receive(chunk: Buffer): void {
    if (this.#ended) return;
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      if (!this.#append(chunk.subarray(start, newline))) return;
      const line = Buffer.concat(this.#partial, this.#partialBytes).toString('utf8');
      this.#partial = [];
      this.#partialBytes = 0;
      this.#deliver(line);
      start = newline + 1;
    }
    if (start < chunk.length) this.#append(chunk.subarray(start));
  }

  /** Adds a piece to the current line; false (and the channel ends) if the line grows past the limit. */
  #append(piece: Buffer): boolean {
    this.#partialBytes += piece.length;
    if (this.#partialBytes > this.#maxLineBytes) {
      this.#overflowed = true;
      this.#partial = [];
      this.#end();
      return false;
    }
    if (piece.length > 0) this.#partial.push(piece);
    return true;
  }

  #deliver(line: string): void {
    if (this.#waiter) {
      const waiter = this.#waiter;
      this.#waiter = undefined;
      waiter(line);
    } else {
      this.#lines.push(line);
    }
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#waiter?.(undefined);
    this.#waiter = undefined;
  }
}
