import { type Stemmer, bm25Terms, bm25Words, stemWord } from './bm25-terms';
import { TopHits } from './top-hits';

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
    for (let term = 0; term < terms; term++) {
      const df = starts[term + 1]! - starts[term]!;
      idf[term] = Math.log(1 + (documents - df + 0.5) / (df + 0.5));
    }
    const index = new Bm25Index(
      this.#termIds,
      starts,
      postingDocs,
      postingWeights,
      idf,
      maxWeights,
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
 * Bounds of a score are compared with this much room: a sum of floats rounds differently depending on its order,
 * by far less than this, so a document is never skipped for a bound that rounding made a hair too small.
 */
const BOUND_SLACK = 1 + 1e-9;

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
  constructor(
    private readonly termIds: ReadonlyMap<string, number>,
    private readonly starts: Int32Array,
    private readonly postingDocs: Int32Array,
    private readonly postingWeights: Float32Array,
    private readonly idf: Float64Array,
    /** Per term, its largest posting weight: times its idf, the most it adds to any document's score. */
    private readonly maxWeights: Float32Array,
    readonly documents: number,
    /** How the documents' words were reduced to terms, and so how a query's are. */
    readonly stemmer: Stemmer = 'none',
  ) {}

  /** Distinct terms in the index. */
  get terms(): number {
    return this.termIds.size;
  }

  /**
   * The `topk` best documents for `query`, best first; equal scores in the order the documents were added.
   * Documents that share no term with the query are never returned, so there may be fewer than `topk`.
   *
   * Documents are visited in ascending order, scoring each on all its query terms at once, and those that
   * cannot make the top k are skipped (MaxScore, as Lucene and PISA do it): the query's terms go by what they
   * can add to a score, most first; once the k-th best score so far is at least what the last terms could add
   * together, a document holding only those cannot beat it, so only the other terms' postings are walked, and
   * the last terms are looked up (by galloping search) for the documents found, and only while the document
   * can still get in. A document's score is summed over its terms in that one order, so ranking and scores are
   * exactly those of scoring every document.
   */
  search(query: string, topk: number): Bm25Hit[] {
    const terms = this.#queryTerms(query);
    const count = terms.length;
    const best = new TopHits(Math.max(0, Math.min(Math.ceil(topk), this.documents)));
    if (count === 0 || best.k === 0) return [];
    const { postingDocs, postingWeights } = this;
    const at = new Int32Array(count);
    const end = new Int32Array(count);
    const weight = new Float64Array(count);
    /** rest[i]: the most terms i.. can add together. */
    const rest = new Float64Array(count + 1);
    for (const [i, { id, times }] of terms.entries()) {
      at[i] = this.starts[id]!;
      end[i] = this.starts[id + 1]!;
      weight[i] = times * this.idf[id]!;
    }
    // A posting adds weight · its posting weight, at most weight · the largest: rounding keeps that order.
    for (let i = count - 1; i >= 0; i--) rest[i] = weight[i]! * this.maxWeights[terms[i]!.id]! + rest[i + 1]!;
    /** Terms 0..walked-1 have their postings walked; the others are only looked up. */
    let walked = count;
    /** A document gets in only with a score above this once k are kept (at a tie, the earlier one stays). */
    let threshold = 0;
    for (;;) {
      let doc = this.documents;
      for (let i = 0; i < walked; i++) {
        if (at[i]! < end[i]! && postingDocs[at[i]!]! < doc) doc = postingDocs[at[i]!]!;
      }
      if (doc === this.documents) break;
      let score = 0;
      for (let i = 0; i < walked; i++) {
        if (at[i]! < end[i]! && postingDocs[at[i]!]! === doc) score += weight[i]! * postingWeights[at[i]!++]!;
      }
      let outranked = false;
      for (let i = walked; i < count; i++) {
        if (best.full && (score + rest[i]!) * BOUND_SLACK <= threshold) {
          outranked = true;
          break;
        }
        const posting = this.#seek(at[i]!, end[i]!, doc);
        at[i] = posting;
        if (posting < end[i]! && postingDocs[posting]! === doc)
          score += weight[i]! * postingWeights[posting]!;
      }
      if (outranked || !best.offer(doc, score) || !best.full) continue;
      threshold = best.worst();
      while (walked > 0 && rest[walked - 1]! * BOUND_SLACK <= threshold) walked -= 1;
    }
    return best.sorted();
  }

  /** The query's known terms, each once with how often the query has it, by what they can add, most first. */
  #queryTerms(query: string): { id: number; times: number }[] {
    const times = new Map<number, number>();
    for (const term of bm25Terms(query, this.stemmer)) {
      const id = this.termIds.get(term);
      if (id !== undefined) times.set(id, (times.get(id) ?? 0) + 1);
    }
    const bound = (id: number, count: number) => count * (this.idf[id]! * this.maxWeights[id]!);
    return [...times]
      .map(([id, count]) => ({ id, times: count, bound: bound(id, count) }))
      .sort((a, b) => b.bound - a.bound || a.id - b.id);
  }

  /**
   * The first posting in [from, end) whose document is `doc` or later (postings are in ascending document
   * order), or end: galloping, so a short hop costs a step or two and a long one its logarithm.
   */
  #seek(from: number, end: number, doc: number): number {
    const docs = this.postingDocs;
    if (from >= end || docs[from]! >= doc) return from;
    let low = from;
    let step = 1;
    while (low + step < end && docs[low + step]! < doc) {
      low += step;
      step *= 2;
    }
    let high = Math.min(low + step, end);
    // docs[low] < doc, and docs[high] >= doc or high is end.
    while (high - low > 1) {
      const middle = (low + high) >>> 1;
      if (docs[middle]! < doc) low = middle;
      else high = middle;
    }
    return high;
  }
}
