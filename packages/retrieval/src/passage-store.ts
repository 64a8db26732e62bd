/** Bytes of one piece of a store's memory; a passage longer than this gets a piece of its own. */
const CHUNK_BYTES = 16 * 1024 * 1024;
/** What a kept passage costs besides its text: its place (piece, offset, two lengths) in typed arrays. */
export const PASSAGE_OVERHEAD_BYTES = 16;

/**
 * Bytes that every PassageStore of one searcher draws from, so the bound holds across corpora. A store gives
 * its bytes back when its index is dropped (a rebuild), so for the time a rebuild takes, the old and the new
 * copies of a corpus are both in memory while the bound counts only what the new one has read so far.
 */
export class MemoryBudget {
  #free: number;

  constructor(readonly bytes: number) {
    if (!(bytes >= 0))
      throw new TypeError(`expected a memory budget of 0 or more bytes, got ${String(bytes)}`);
    this.#free = bytes;
  }

  /** Bytes not taken. */
  get free(): number {
    return this.#free;
  }

  /** Takes `bytes` if that many are free; false (and nothing taken) otherwise. */
  take(bytes: number): boolean {
    if (bytes > this.#free) return false;
    this.#free -= bytes;
    return true;
  }

  give(bytes: number): void {
    this.#free = Math.min(this.bytes, this.#free + bytes);
  }
}

/**
 * The passages of one corpus's index, kept in memory so a search answers without reading them from the
 * database: UTF-8 in 16 MB pieces outside the JavaScript heap (no garbage collector pauses for a million
 * strings), by their position in the index. Passages are added in index order until the budget runs out; from
 * the first one that does not fit, none is kept, and `get` answers undefined for those (the caller reads them
 * from the database).
 */
export class PassageStore {
  readonly #budget: MemoryBudget;
  readonly #chunks: Buffer[] = [];
  /** Bytes written to the last piece. */
  #used = 0;
  /** What the last piece can still take, counting each passage's place. */
  #room = 0;
  #taken = 0;
  #full = false;
  #chunkOf: number[] | Int32Array = [];
  #offsetOf: number[] | Int32Array = [];
  #idBytes: number[] | Int32Array = [];
  #contentsBytes: number[] | Int32Array = [];

  constructor(budget: MemoryBudget) {
    this.#budget = budget;
  }

  /** Passages kept: those at positions 0 to kept - 1. */
  get kept(): number {
    return this.#chunkOf.length;
  }

  /** Bytes this store holds against its budget. */
  get bytes(): number {
    return this.#taken;
  }

  /** Keeps the passage at the next position, if the budget allows it and every one before was kept. */
  add(id: string, contents: string): boolean {
    if (this.#full) return false;
    const idBytes = Buffer.byteLength(id);
    const contentsBytes = Buffer.byteLength(contents);
    const cost = idBytes + contentsBytes + PASSAGE_OVERHEAD_BYTES;
    let chunk = this.#chunks.at(-1);
    if (chunk === undefined || cost > this.#room) {
      // A piece counts whole against the budget, as it is allocated whole (its passages' places included);
      // near the bound it is smaller.
      const piece = Math.max(cost, Math.min(CHUNK_BYTES, this.#budget.free));
      if (!this.#budget.take(piece)) {
        this.#full = true;
        return false;
      }
      this.#taken += piece;
      chunk = Buffer.allocUnsafeSlow(piece);
      this.#chunks.push(chunk);
      this.#used = 0;
      this.#room = piece;
    }
    this.#room -= cost;
    const at = this.#used;
    chunk.write(id, at, 'utf8');
    chunk.write(contents, at + idBytes, 'utf8');
    this.#used += idBytes + contentsBytes;
    (this.#chunkOf as number[]).push(this.#chunks.length - 1);
    (this.#offsetOf as number[]).push(at);
    (this.#idBytes as number[]).push(idBytes);
    (this.#contentsBytes as number[]).push(contentsBytes);
    return true;
  }

  /** Done adding: the positions move to typed arrays (4 bytes a number instead of up to 8). */
  seal(): this {
    this.#full = true;
    this.#chunkOf = Int32Array.from(this.#chunkOf);
    this.#offsetOf = Int32Array.from(this.#offsetOf);
    this.#idBytes = Int32Array.from(this.#idBytes);
    this.#contentsBytes = Int32Array.from(this.#contentsBytes);
    return this;
  }

  /** The passage at `position`, or undefined if it was not kept. */
  get(position: number): { id: string; contents: string } | undefined {
    if (position >= this.kept) return undefined;
    const chunk = this.#chunks[this.#chunkOf[position]!]!;
    const at = this.#offsetOf[position]!;
    const idEnd = at + this.#idBytes[position]!;
    return {
      id: chunk.toString('utf8', at, idEnd),
      contents: chunk.toString('utf8', idEnd, idEnd + this.#contentsBytes[position]!),
    };
  }

  /** Gives the store's bytes back to the budget; the store must not be used afterwards. */
  release(): void {
    this.#budget.give(this.#taken);
    this.#taken = 0;
  }
}
