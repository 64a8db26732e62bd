import { decodeOutput, withoutPartialCharacter } from './decode-output';

/**
 * Output as SandboxFusion reports it, from the first `kept` bytes of `seen` bytes written: when some were
 * dropped, the text is cut at a character boundary and a last line says how many bytes were dropped.
 */
export function outputText(kept: Buffer, seen: number, limit: number): string {
  if (seen <= kept.length) return decodeOutput(kept);
  const whole = withoutPartialCharacter(kept);
  return `${decodeOutput(whole)}\n[Fusebox: output truncated: ${seen - whole.length} of ${seen} bytes dropped (limit ${limit} bytes)]\n`;
}

/**
 * One output stream of a sandboxed process, read while the process runs (so a chatty program never blocks on a
 * full pipe) and kept up to `limit` bytes; the rest is counted and dropped.
 */
export class CappedOutput {
  readonly limit: number;
  readonly #chunks: Buffer[] = [];
  #kept = 0;
  #seen = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  get truncated(): boolean {
    return this.#seen > this.#kept;
  }

  push(chunk: Buffer): void {
    this.#seen += chunk.length;
    const room = this.limit - this.#kept;
    if (room <= 0) return;
    const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.#chunks.push(kept);
    this.#kept += kept.length;
  }

  text(): string {
    return outputText(Buffer.concat(this.#chunks, this.#kept), this.#seen, this.limit);
  }
}
