import { describe, expect, it } from 'vitest';
import { Bm25IndexBuilder, type Bm25Parameters, PYSERINI_BM25 } from '../src/bm25-index';
import { bm25Terms } from '../src/bm25-terms';

/** BM25 as its textbook definition (Lucene's variant), one document at a time: slow and plainly right. */
function referenceScores(documents: string[], query: string, { k1, b }: Bm25Parameters): number[] {
  const docTerms = documents.map(bm25Terms);
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

  it('keeps searching correctly after earlier searches (its scratch space is reset)', () => {
    const first = index.search('paris london', 5);
    index.search('bridge', 5);
    expect(index.search('paris london', 5)).toEqual(first);
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
});
