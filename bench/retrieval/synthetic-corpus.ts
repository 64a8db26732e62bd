import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

/**
 * A deterministic stand-in for wiki-18 (Search-R1's corpus): passages of 30–90 words drawn from a Zipf-like
 * vocabulary of 60k made-up words plus English function words, each with a title line, in Search-R1's JSONL
 * format. Queries are 4–9 words of one passage with a function word or two, as a model's search queries are.
 */
export class SyntheticCorpus {
  readonly #words: string[];
  #seed: number;

  constructor(seed = 42) {
    this.#seed = seed;
    const syllables = [
      'ka',
      'lo',
      'mi',
      'ren',
      'tu',
      'sa',
      'vor',
      'el',
      'ith',
      'qua',
      'dan',
      'po',
      'zer',
      'ul',
    ];
    this.#words = Array.from({ length: 60_000 }, (_, i) => {
      let word = '';
      for (let n = i + 1; n > 0; n = Math.floor(n / syllables.length))
        word += syllables[n % syllables.length]!;
      return word;
    });
  }

  #next(): number {
    this.#seed = (Math.imul(this.#seed, 1103515245) + 12345) >>> 0;
    return this.#seed / 2 ** 32;
  }

  /** Rank r is drawn with probability about 1/r: a few words everywhere, most words rare. */
  #word(): string {
    if (this.#next() < 0.3) return FUNCTION_WORDS[Math.floor(this.#next() * FUNCTION_WORDS.length)]!;
    return this.#words[Math.floor(Math.exp(this.#next() * Math.log(this.#words.length)))] ?? this.#words[0]!;
  }

  passage(): string {
    const title = `${this.#word()} ${this.#word()}`;
    const length = 30 + Math.floor(this.#next() * 60);
    return `"${title}"\n${Array.from({ length }, () => this.#word()).join(' ')}.`;
  }

  /** A query made of words of `passage`, so it has answers. */
  queryFrom(passage: string): string {
    const words = passage.split(/\s+/);
    const length = 4 + Math.floor(this.#next() * 6);
    const picked = Array.from({ length }, () => words[Math.floor(this.#next() * words.length)]!);
    return `what ${picked.join(' ').replace(/[".]/g, '')}`;
  }
}

const FUNCTION_WORDS = ['the', 'of', 'and', 'in', 'to', 'was', 'is', 'for', 'on', 'with', 'by', 'he', 'she'];

/** Writes `documents` passages to `path`, one `{"id", "contents"}` per line; returns a passage per 1,000. */
export async function writeSyntheticCorpus(path: string, documents: number, corpus: SyntheticCorpus) {
  const out = createWriteStream(path);
  const samples: string[] = [];
  for (let id = 0; id < documents; id++) {
    const contents = corpus.passage();
    if (id % 1000 === 0) samples.push(contents);
    if (!out.write(`${JSON.stringify({ id: String(id), contents })}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return samples;
}
