import type { Readable } from 'node:stream';

/**
 * The lines a sandbox's driver writes on its event pipe, read in order. `next()` resolves with the next line,
 * or undefined once the pipe is closed (the sandbox ended).
 */
export class LineChannel {
  readonly #lines: string[] = [];
  #partial = '';
  #ended = false;
  #waiter: ((line: string | undefined) => void) | undefined;

  constructor(stream: Readable) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const parts = (this.#partial + chunk).split('\n');
      this.#partial = parts.pop() ?? '';
      for (const line of parts) this.#deliver(line);
    });
    const end = () => {
      if (this.#ended) return;
      this.#ended = true;
      this.#waiter?.(undefined);
      this.#waiter = undefined;
    };
    stream.on('end', end);
    stream.on('close', end);
    stream.on('error', end);
  }

  next(): Promise<string | undefined> {
    const line = this.#lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.#ended) return Promise.resolve(undefined);
    return new Promise((resolve) => (this.#waiter = resolve));
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
}
