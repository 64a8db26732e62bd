import { describe, expect, it } from 'vitest';
import { type Bm25Hit, Bm25IndexBuilder, type Bm25Parameters, PYSERINI_BM25 } from '../src/bm25-index';
import { bm25Terms } from '../src/bm25-terms';

/** BM25 as its textbook definition (Lucene's variant), one document at a time: slow and plainly right. */
function referenceScores(documents: string[], query: string, { k1, b }: Bm25Parameters): number[] {
  const docTerms = documents.map((document) => bm25Terms(document));
  const averageLength = docTerms.reduce((sum, terms) => sum + terms.length, 0) / documents.length;
  return docTerms.map((terms) => {
    let score = 0;
    for (const term of bm25Terms(query)) {
      const tf = terms.filter((t) => t === term).length;
      if (tf === 0) continue;
      const df = docTerms.filter((other) => other.includes(term)).length;
      const idf = Math.log(1 + (documents.length - df + 0.5) / (df + 0.5));
      score += (idf * tf) / (tf + k1 * (1 - b + (b * terms.length) / averageLength));
    }
    return score;
  });
}

/** A small corpus with shared words, repeats and lengths that differ, so idf, tf and length all matter. */
function corpus(): string[] {
  const words = [
    'paris',
    'france',
    'capital',
    'river',
    'seine',
    'london',
    'thames',
    'city',
    'bridge',
    'tower',
  ];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  return Array.from({ length: 200 }, () =>
    Array.from({ length: 3 + (next() % 25) }, () => words[next() % words.length]).join(' '),
  );
}

describe('BM25 ranking', () => {
  const documents = corpus();
  const builder = new Bm25IndexBuilder();
  for (const document of documents) builder.add(document);
  const index = builder.build();

  it.each(['paris', 'capital of france', 'seine river bridge', 'tower tower london', 'the city'])(
    'ranks %j exactly as the reference BM25 does',
    (query) => {
      const scores = referenceScores(documents, query, PYSERINI_BM25);
      const expected = scores
        .map((score, doc) => ({ doc, score }))
        .filter((hit) => hit.score > 0)
        .sort((a, b) => b.score - a.score || a.doc - b.doc)
        .slice(0, 10);
      const hits = index.search(query, 10);
      expect(hits.map((hit) => hit.doc)).toEqual(expected.map((hit) => hit.doc));
      for (const [rank, hit] of hits.entries()) expect(hit.score).toBeCloseTo(expected[rank]!.score, 5);
    },
  );

  it('finds nothing for words no document holds, or stop words alone', () => {
    expect(index.search('zebra', 5)).toEqual([]);
    expect(index.search('the of and', 5)).toEqual([]);
  });

  it('breaks ties by the order documents were added, and returns at most topk', () => {
    const twins = new Bm25IndexBuilder();
    for (const text of ['alpha beta', 'gamma', 'alpha beta', 'alpha beta']) twins.add(text);
    const hits = twins.build().search('alpha', 2);
    expect(hits.map((hit) => hit.doc)).toEqual([0, 2]);
    expect(hits[0]!.score).toBe(hits[1]!.score);
  });

  it('keeps searching correctly after earlier searches (nothing carries over)', () => {
    const first = index.search('paris london', 5);
    index.search('bridge', 5);
    expect(index.search('paris london', 5)).toEqual(first);
  });
});

/**
 * Every document scored, then sorted (score, then the order added): what a pruned search must answer. Built once
 * per corpus (document frequencies and lengths), so hundreds of queries stay quick.
 */
function exhaustiveRanking(documents: string[]): (query: string, topk: number) => Bm25Hit[] {
  const docTerms = documents.map((document) => {
    const terms = bm25Terms(document);
    const counts = new Map<string, number>();
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    return { counts, length: terms.length };
  });
  const df = new Map<string, number>();
  for (const { counts } of docTerms) for (const term of counts.keys()) df.set(term, (df.get(term) ?? 0) + 1);
  const averageLength = docTerms.reduce((sum, doc) => sum + doc.length, 0) / documents.length;
  const { k1, b } = PYSERINI_BM25;
  return (query, topk) =>
    docTerms
      .map(({ counts, length }, doc) => {
        let score = 0;
        for (const term of bm25Terms(query)) {
          const tf = counts.get(term) ?? 0;
          if (tf === 0) continue;
          const idf = Math.log(1 + (documents.length - df.get(term)! + 0.5) / (df.get(term)! + 0.5));
          score += (idf * tf) / (tf + k1 * (1 - b + (b * length) / averageLength));
        }
        return { doc, score };
      })
      .filter((hit) => hit.score > 0)
      .sort((x, y) => y.score - x.score || x.doc - y.doc)
      .slice(0, topk);
}

/**
 * The same documents in the same order, and each score equal to float precision: the index keeps each
 * posting's weight as a 32-bit float (7 significant digits), the reference computes in 64 bits.
 */
function expectSameRanking(query: string, topk: number, hits: Bm25Hit[], expected: Bm25Hit[]) {
  expect({ query, topk, docs: hits.map((hit) => hit.doc) }).toEqual({
    query,
    topk,
    docs: expected.map((hit) => hit.doc),
  });
  for (const [rank, hit] of hits.entries()) {
    expect(Math.abs(hit.score - expected[rank]!.score)).toBeLessThanOrEqual(1e-6 * expected[rank]!.score);
  }
}

describe('BM25 ranking that skips common terms (MaxScore)', () => {
  // Zipf-like words, so queries mix rare terms with terms in most documents: the case where the common terms'
  // postings are only looked up for documents already found, which must not change the ranking.
  let seed = 11;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const word = () => `w${Math.floor(Math.exp(next() * Math.log(3000)))}`;
  const documents = Array.from({ length: 3000 }, () =>
    Array.from({ length: 5 + Math.floor(next() * 40) }, word).join(' '),
  );
  const builder = new Bm25IndexBuilder();
  for (const document of documents) builder.add(document);
  const index = builder.build();
  const reference = exhaustiveRanking(documents);

  it('ranks 200 mixed queries exactly as the exhaustive reference, at topk 1, 3 and 10', () => {
    for (let q = 0; q < 200; q++) {
      const query = Array.from({ length: 2 + (q % 6) }, (_, i) => (i % 2 ? `w${1 + (q % 4)}` : word())).join(
        ' ',
      );
      const topk = [1, 3, 10][q % 3]!;
      expectSameRanking(query, topk, index.search(query, topk), reference(query, topk));
    }
  });
});

describe('BM25 ranking that skips documents, against scoring every one', () => {
  // Documents drawn from a Zipf-like vocabulary, a third of them copies of earlier ones (the same terms and
  // length, so the same score to the bit: ties the order added must break), some a word or two long.
  let seed = 23;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const word = () => `v${Math.floor(Math.exp(next() * Math.log(400)))}`;
  const documents: string[] = [];
  for (let i = 0; i < 2000; i++) {
    if (i > 0 && next() < 0.33) documents.push(documents[Math.floor(next() * i)]!);
    else documents.push(Array.from({ length: 1 + Math.floor(next() * 30) }, word).join(' '));
  }
  const builder = new Bm25IndexBuilder();
  for (const document of documents) builder.add(document);
  const index = builder.build();
  const reference = exhaustiveRanking(documents);

  it('answers 400 random queries as exhaustive scoring does, ties and topk beyond the matches included', () => {
    let ties = 0;
    let fewerThanTopk = 0;
    for (let q = 0; q < 400; q++) {
      // Rare and common words, repeats (a term given twice counts twice), stop words and unknown words.
      const query = Array.from({ length: 1 + Math.floor(next() * 7) }, () =>
        next() < 0.1 ? ['the', 'of', 'zzz'][Math.floor(next() * 3)]! : word(),
      ).join(' ');
      const topk = [1, 2, 3, 5, 10, 50, 2000][q % 7]!;
      const expected = reference(query, topk);
      expectSameRanking(query, topk, index.search(query, topk), expected);
      if (expected.some((hit, rank) => rank > 0 && hit.score === expected[rank - 1]!.score)) ties += 1;
      if (expected.length < topk) fewerThanTopk += 1;
    }
    // The cases this test is for did come up.
    expect(ties).toBeGreaterThan(50);
    expect(fewerThanTopk).toBeGreaterThan(20);
  });
});

describe('BM25 terms', () => {
  it('lowercases, splits on anything but letters and digits, and drops stop words', () => {
    expect(bm25Terms('"Hamlet"\nThe play was written by W. Shakespeare in 1600; Café-crème!')).toEqual([
      'hamlet',
      'play',
      'written',
      'w',
      'shakespeare',
      '1600',
      'café',
      'crème',
    ]);
  });

  it("reduces words to Porter's stems when asked, so inflections match: cities → citi, running → run", () => {
    expect(bm25Terms('The cities, running rivers and a generalization', 'porter')).toEqual([
      'citi',
      'run',
      'river',
      'gener',
    ]);
    expect(bm25Terms('The cities', 'none')).toEqual(['cities']);
  });
});

describe('a stemmed index', () => {
  const documents = [
    'Paris is a city on the Seine.',
    'Many cities of France lie on rivers.',
    'Running water powered the mills.',
    'She runs a bakery in Lyon.',
  ];
  const build = (stemmer: 'porter' | 'none') => {
    const builder = new Bm25IndexBuilder({ stemmer });
    for (const document of documents) builder.add(document);
    return builder.build();
  };

  it('finds a word by its other forms, and scores as the reference over stemmed terms', () => {
    const stemmed = build('porter');
    expect(stemmed.stemmer).toBe('porter');
    expect(stemmed.search('city', 4).map((hit) => hit.doc)).toEqual([0, 1]);
    expect(stemmed.search('runs', 4).map((hit) => hit.doc)).toEqual([2, 3]);
    const expected = documents.map((document) => bm25Terms(document, 'porter').join(' '));
    const scores = referenceScores(expected, bm25Terms('cities river', 'porter').join(' '), PYSERINI_BM25);
    for (const hit of stemmed.search('cities river', 4)) expect(hit.score).toBeCloseTo(scores[hit.doc]!, 5);
  });

  it('without a stemmer, matches only the word as written (as corpora imported before stemming do)', () => {
    const plain = build('none');
    expect(plain.search('city', 4).map((hit) => hit.doc)).toEqual([0]);
    expect(plain.search('runs', 4).map((hit) => hit.doc)).toEqual([3]);
  });
});
