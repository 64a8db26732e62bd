/**
 * Dense ids (0, 1, 2, ...) for hashes given as two 32-bit halves, kept in typed arrays (open addressing, linear
 * probing). The importer looks up every word of a dump here: keyed by strings or by numbers beyond 31 bits, a
 * `Map` cost a string hash or a heap allocation per word, and that showed in an import's profile.
 */
export class HashPairIds {
  #high = new Int32Array(1024);
  #low = new Int32Array(1024);
  /** id + 1 per slot; 0 is an empty slot. */
  #ids = new Int32Array(1024);
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** The pair's id: the one it was given before, or `size` when it is new (and then `size` grows by one). */
  idOf(high: number, low: number): number {
    if (this.#size * 2 >= this.#ids.length) this.#grow();
    const mask = this.#ids.length - 1;
    for (let slot = home(high, low, mask); ; slot = (slot + 1) & mask) {
      const id = this.#ids[slot]! - 1;
      if (id < 0) {
        this.#put(slot, high, low, this.#size);
        return this.#size++;
      }
      if (this.#high[slot] === high && this.#low[slot] === low) return id;
    }
  }

  #put(slot: number, high: number, low: number, id: number): void {
    this.#high[slot] = high;
    this.#low[slot] = low;
    this.#ids[slot] = id + 1;
  }

  #grow(): void {
    const [high, low, ids] = [this.#high, this.#low, this.#ids];
    const capacity = ids.length * 2;
    this.#high = new Int32Array(capacity);
    this.#low = new Int32Array(capacity);
    this.#ids = new Int32Array(capacity);
    const mask = capacity - 1;
    for (let old = 0; old < ids.length; old++) {
      if (ids[old] === 0) continue;
      let slot = home(high[old]!, low[old]!, mask);
      while (this.#ids[slot] !== 0) slot = (slot + 1) & mask;
      this.#put(slot, high[old]!, low[old]!, ids[old]! - 1);
    }
  }
}

/** The slot a pair's probe starts at. */
function home(high: number, low: number, mask: number): number {
  return (low ^ Math.imul(high, 0x9e3779b1)) & mask;
}
