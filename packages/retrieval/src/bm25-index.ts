import { type Stemmer, bm25Terms, bm25Words, stemWord } from './bm25-terms';

/** BM25's two constants. */
export interface Bm25Parameters {
  /** How quickly repeats of a term stop adding to the score. */
  k1: number;
  /** How much a long document is penalised (0: not at all, 1: fully). */
  b: number;
}

/** pyserini's defaults, which Search-R1's BM25 retriever runs with. */
export const PYSERINI_BM25: Bm25Parameters = { k1: 0.9, b: 0.4 };

/** A ranked document: its position among the documents added (0-based) and its score. */
export interface Bm25Hit {
  doc: number;
  score: number;
}

/**
 * Collects documents, in order, for a {@link Bm25Index}. Each document is kept as (term, count) pairs in flat
 * typed arrays, so a million passages cost a few hundred bytes each and no object per posting. Words are
 * reduced to terms by `stemmer` (default `none`), and the index's queries will be too.
 */
export class Bm25IndexBuilder {
  readonly #stemmer: Stemmer;
  readonly #termIds = new Map<string, number>();
  /**
   * Each word seen, as written, to its term's id: a corpus repeats its words, so each is stemmed once, and a
   * word costs one lookup whether stemmed or not. Without a stemmer a word is its term, and this is #termIds.
   */
  readonly #wordIds: Map<string, number>;
  readonly #lengths: number[] = [];
  #pairTerms = new Int32Array(1 << 16);
  #pairDocs = new Int32Array(1 << 16);
  #pairCounts = new Int32Array(1 << 16);
  #pairs = 0;

  constructor(options: { stemmer?: Stemmer } = {}) {
    this.#stemmer = options.stemmer ?? 'none';
    this.#wordIds = this.#stemmer === 'none' ? this.#termIds : new Map<string, number>();
  }

  /** Adds the next document; its hits will carry this call's position. */
  add(contents: string): void {
    const doc = this.#lengths.length;
    const words = bm25Words(contents);
    this.#lengths.push(words.length);
    const counts = new Map<number, number>();
    for (const word of words) {
      let id = this.#wordIds.get(word);
      if (id === undefined) {
        const term = stemWord(word, this.#stemmer);
        id = this.#termIds.get(term);
        if (id === undefined) {
          id = this.#termIds.size;
          this.#termIds.set(term, id);
        }
        this.#wordIds.set(word, id);
      }
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    for (const [term, count] of counts) {
      if (this.#pairs === this.#pairTerms.length) this.#grow();
      this.#pairTerms[this.#pairs] = term;
      this.#pairDocs[this.#pairs] = doc;
      this.#pairCounts[this.#pairs] = count;
      this.#pairs += 1;
    }
  }

  get size(): number {
    return this.#lengths.length;
  }

  /** The finished index. The builder's arrays are let go, so it must not be used again. */
  build(parameters: Bm25Parameters = PYSERINI_BM25): Bm25Index {
    const { k1, b } = parameters;
    const documents = this.#lengths.length;
    const terms = this.#termIds.size;
    let totalLength = 0;
    for (const length of this.#lengths) totalLength += length;
    const averageLength = documents > 0 ? totalLength / documents : 0;

    // Postings grouped by term (counting sort on the term), documents ascending within each term since they
    // were added in order.
    const starts = new Int32Array(terms + 1);
    for (let pair = 0; pair < this.#pairs; pair++) starts[this.#pairTerms[pair]! + 1]! += 1;
    for (let term = 0; term < terms; term++) starts[term + 1]! += starts[term]!;
    const next = starts.slice(0, terms);
    const postingDocs = new Int32Array(this.#pairs);
    // The document-side factor of BM25, fixed once the corpus is: a query only multiplies it by idf and adds.
    const postingWeights = new Float32Array(this.#pairs);
    const maxWeights = new Float32Array(terms);
    for (let pair = 0; pair < this.#pairs; pair++) {
      const slot = next[this.#pairTerms[pair]!]!++;
      const doc = this.#pairDocs[pair]!;
      const count = this.#pairCounts[pair]!;
      const norm = averageLength > 0 ? 1 - b + (b * this.#lengths[doc]!) / averageLength : 1;
      postingDocs[slot] = doc;
      const weight = count / (count + k1 * norm);
      postingWeights[slot] = weight;
      if (weight > maxWeights[this.#pairTerms[pair]!]!) maxWeights[this.#pairTerms[pair]!] = weight;
    }
    const idf = new Float64Array(terms);
    const bounds = new Float64Array(terms);
    for (let term = 0; term < terms; term++) {
      const df = starts[term + 1]! - starts[term]!;
      idf[term] = Math.log(1 + (documents - df + 0.5) / (df + 0.5));
      bounds[term] = idf[term]! * maxWeights[term]!;
    }
    const index = new Bm25Index(
      this.#termIds,
      starts,
      postingDocs,
      postingWeights,
      idf,
      bounds,
      documents,
      this.#stemmer,
    );
    this.#pairTerms = this.#pairDocs = this.#pairCounts = new Int32Array(0);
    this.#pairs = 0;
    return index;
  }

  #grow(): void {
    const grown = (array: Int32Array) => {
      const bigger = new Int32Array(array.length * 2);
      bigger.set(array);
      return bigger;
    };
    this.#pairTerms = grown(this.#pairTerms);
    this.#pairDocs = grown(this.#pairDocs);
    this.#pairCounts = grown(this.#pairCounts);
  }
}

/**
 * An in-memory BM25 index over a fixed list of documents, scored as Lucene (and so pyserini) does:
 * idf = ln(1 + (N - df + 0.5) / (df + 0.5)) and, per term, idf · tf / (tf + k1 · (1 - b + b · dl / avgdl)),
 * summed over the query's terms (a term given twice counts twice). Lucene stores document lengths rounded, so
 * its scores differ from these in the last digits; the order is the same but for near ties.
 *
 * @example
 * const builder = new Bm25IndexBuilder();
 * for (const passage of passages) builder.add(passage);
 * const hits = builder.build().search('who wrote hamlet', 3); // [{ doc: 12, score: 7.1 }, …]
 */
export class Bm25Index {
  /** Scratch space for one search: a score per document, and which ones the search touched. */
  readonly #scores: Float64Array;
  readonly #touched: Int32Array;

  constructor(
    private readonly termIds: ReadonlyMap<string, number>,
    private readonly starts: Int32Array,
    private readonly postingDocs: Int32Array,
    private readonly postingWeights: Float32Array,
    private readonly idf: Float64Array,
    /** Per term, the most it adds to any document's score. */
    private readonly bounds: Float64Array,
    readonly documents: number,
    /** How the documents' words were reduced to terms, and so how a query's are. */
    readonly stemmer: Stemmer = 'none',
  ) {
    this.#scores = new Float64Array(documents);
    this.#touched = new Int32Array(documents);
  }

  /** Distinct terms in the index. */
  get terms(): number {
    return this.termIds.size;
  }

  /**
   * The `topk` best documents for `query`, best first; equal scores in the order the documents were added.
   * Documents that share no term with the query are never returned, so there may be fewer than `topk`.
   */
  search(query: string, topk: number): Bm25Hit[] {
    const scores = this.#scores;
    const touched = this.#touched;
    let touchedCount = 0;
    // Terms with the most they can add first (rare terms), so the common terms, with the longest postings, come
    // last and can often be skipped (MaxScore): once the k-th best score so far beats everything the remaining
    // terms could add together, no document they alone hold can make the top k, and they are only looked up
    // for the documents already found.
    const terms = this.#queryTerms(query);
    let remaining = terms.reduce((sum, term) => sum + term.bound, 0);
    let next = 0;
    for (; next < terms.length; next++) {
      if (next > 0 && touchedCount >= topk && this.#kthBest(touchedCount, topk) > remaining) break;
      const { id, times, bound } = terms[next]!;
      const idf = times * this.idf[id]!;
      const end = this.starts[id + 1]!;
      for (let posting = this.starts[id]!; posting < end; posting++) {
        const doc = this.postingDocs[posting]!;
        if (scores[doc] === 0) touched[touchedCount++] = doc;
        scores[doc]! += idf * this.postingWeights[posting]!;
      }
      remaining -= bound;
    }
    for (; next < terms.length; next++) {
      const { id, times } = terms[next]!;
      const idf = times * this.idf[id]!;
      for (let i = 0; i < touchedCount; i++) {
        const doc = touched[i]!;
        const posting = this.#find(id, doc);
        if (posting >= 0) scores[doc]! += idf * this.postingWeights[posting]!;
      }
    }
    const best = new TopHits(topk);
    for (let i = 0; i < touchedCount; i++) {
      const doc = touched[i]!;
      best.offer(doc, scores[doc]!);
      scores[doc] = 0;
    }
    return best.sorted();
  }

  /** The query's known terms, each once with how often the query has it, by what they can add, most first. */
  #queryTerms(query: string): { id: number; times: number; bound: number }[] {
    const times = new Map<number, number>();
    for (const term of bm25Terms(query, this.stemmer)) {
      const id = this.termIds.get(term);
      if (id !== undefined) times.set(id, (times.get(id) ?? 0) + 1);
    }
    return [...times]
      .map(([id, count]) => ({ id, times: count, bound: count * this.bounds[id]! }))
      .sort((a, b) => b.bound - a.bound || a.id - b.id);
  }

  /** The k-th best score among the documents touched so far (a lower bound of their final scores). */
  #kthBest(touchedCount: number, k: number): number {
    const best = new TopHits(k);
    for (let i = 0; i < touchedCount; i++) best.offer(this.#touched[i]!, this.#scores[this.#touched[i]!]!);
    return best.worst();
  }

  /** Where `doc` is in the term's postings (documents ascending), or -1. */
  #find(term: number, doc: number): number {
    let low = this.starts[term]!;
    let high = this.starts[term + 1]! - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const found = this.postingDocs[middle]!;
      if (found === doc) return middle;
      if (found < doc) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }
}

/** The k best (doc, score) pairs seen, in a min-heap whose root is the worst kept: better score, then lower doc. */
class TopHits {
  readonly #heap: Bm25Hit[] = [];

  constructor(private readonly k: number) {}

  offer(doc: number, score: number): void {
    const heap = this.#heap;
    if (heap.length < this.k) {
      heap.push({ doc, score });
      this.#up(heap.length - 1);
    } else if (this.k > 0 && better({ doc, score }, heap[0]!)) {
      heap[0] = { doc, score };
      this.#down(0);
    }
  }

  /** The score of the worst hit kept (the k-th best once k were offered). */
  worst(): number {
    return this.#heap[0]?.score ?? 0;
  }

  sorted(): Bm25Hit[] {
    return [...this.#heap].sort((a, c) => (better(a, c) ? -1 : 1));
  }

  #up(at: number): void {
    const heap = this.#heap;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!better(heap[parent]!, heap[at]!)) break;
      [heap[parent], heap[at]] = [heap[at]!, heap[parent]!];
      at = parent;
    }
  }

  #down(at: number): void {
    const heap = this.#heap;
    for (;;) {
      const left = 2 * at + 1;
      let worst = at;
      if (left < heap.length && better(heap[worst]!, heap[left]!)) worst = left;
      if (left + 1 < heap.length && better(heap[worst]!, heap[left + 1]!)) worst = left + 1;
      if (worst === at) return;
      [heap[worst], heap[at]] = [heap[at]!, heap[worst]!];
      at = worst;
    }
  }
}

function better(a: Bm25Hit, b: Bm25Hit): boolean {
  return a.score > b.score || (a.score === b.score && a.doc < b.doc);
}
