import type { Bm25Hit } from './bm25-index';

/**
 * The k best (doc, score) pairs offered, in a min-heap on typed arrays whose root is the worst kept: better
 * means a higher score, then a lower doc. Its size is k's, never the corpus's.
 */
export class TopHits {
  readonly #docs: Int32Array;
  readonly #scores: Float64Array;
  #size = 0;

  constructor(readonly k: number) {
    this.#docs = new Int32Array(k);
    this.#scores = new Float64Array(k);
  }

  /** Whether k hits are kept, so that a document must beat the worst of them to get in. */
  get full(): boolean {
    return this.#size === this.k;
  }

  /** The score of the worst hit kept (the k-th best once k were offered). */
  worst(): number {
    return this.#size > 0 ? this.#scores[0]! : 0;
  }

  /** Keeps the hit if it is among the k best so far; true if it was kept. */
  offer(doc: number, score: number): boolean {
    if (this.#size < this.k) {
      this.#docs[this.#size] = doc;
      this.#scores[this.#size] = score;
      this.#up(this.#size++);
      return true;
    }
    if (this.k === 0 || !better(doc, score, this.#docs[0]!, this.#scores[0]!)) return false;
    this.#docs[0] = doc;
    this.#scores[0] = score;
    this.#down(0);
    return true;
  }

  /** The hits kept, best first. */
  sorted(): Bm25Hit[] {
    const hits: Bm25Hit[] = [];
    for (let i = 0; i < this.#size; i++) hits.push({ doc: this.#docs[i]!, score: this.#scores[i]! });
    return hits.sort((a, c) => (better(a.doc, a.score, c.doc, c.score) ? -1 : 1));
  }

  #up(at: number): void {
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.#better(parent, at)) return;
      this.#swap(parent, at);
      at = parent;
    }
  }

  #down(at: number): void {
    for (;;) {
      const left = 2 * at + 1;
      let worst = at;
      if (left < this.#size && this.#better(worst, left)) worst = left;
      if (left + 1 < this.#size && this.#better(worst, left + 1)) worst = left + 1;
      if (worst === at) return;
      this.#swap(worst, at);
      at = worst;
    }
  }

  #better(i: number, j: number): boolean {
    return better(this.#docs[i]!, this.#scores[i]!, this.#docs[j]!, this.#scores[j]!);
  }

  #swap(i: number, j: number): void {
    const doc = this.#docs[i]!;
    const score = this.#scores[i]!;
    this.#docs[i] = this.#docs[j]!;
    this.#scores[i] = this.#scores[j]!;
    this.#docs[j] = doc;
    this.#scores[j] = score;
  }
}

function better(doc: number, score: number, otherDoc: number, otherScore: number): boolean {
  return score > otherScore || (score === otherScore && doc < otherDoc);
}
