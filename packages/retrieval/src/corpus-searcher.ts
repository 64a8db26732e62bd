import type { PrismaClient } from '@fusebox/db/client';
import {
  type Bm25Hit,
  type Bm25Index,
  Bm25IndexBuilder,
  type Bm25Parameters,
  PYSERINI_BM25,
} from './bm25-index';
import type { Stemmer } from './bm25-terms';
import { CorpusChoiceError } from './errors/corpus-choice-error';
import { UnknownCorpusError } from './errors/unknown-corpus-error';
import { MemoryBudget, PassageStore } from './passage-store';

/** A passage found for a query, as Search-R1's retrieval server returns it, with its BM25 score. */
export interface RetrievedDocument {
  id: string;
  contents: string;
  score: number;
}

export interface CorpusSearch {
  corpus: { id: string; name: string };
  /** Per query, in the order given, its best passages, best first. */
  results: RetrievedDocument[][];
}

/** Passages read from the database per query while an index is built. */
const LOAD_BATCH = 10_000;
/** Passages indexed between two turns of the event loop while an index is built. */
const YIELD_EVERY = 500;
/** Default of `passageMemoryBytes`: a million passages of Search-R1's size (about 420 MB of text) fit. */
export const DEFAULT_PASSAGE_MEMORY_BYTES = 1024 * 1024 * 1024;

interface LoadedIndex {
  index: Bm25Index;
  /** Per position in the index, the passage's line (its key in `retrieval_document`). */
  lines: Int32Array;
  /** The passages answered from memory: the first ones, as many as the budget allows. */
  passages: PassageStore;
}

/** A corpus as a search needs it: which one, and its version (a new one rebuilds the index). */
export interface CorpusRef {
  id: string;
  name: string;
  documentCount: number;
  /** A corpus's stemmer as stored: one of STEMMERS (the import checks it). */
  stemmer: string;
  updatedAt: Date;
}

/**
 * Searches imported corpora with BM25. Each corpus's index is built in this process from its passages on first
 * use (a few seconds per 100k passages, see bench/retrieval) and kept while the corpus is unchanged; an import
 * that adds passages makes the next search rebuild it. The passages themselves are kept in memory too, up to
 * `passageMemoryBytes` for all corpora together; the hits beyond that bound are read from the database.
 *
 * @example
 * const searcher = new CorpusSearcher(prisma);
 * const corpus = await searcher.resolveCorpus('wiki');
 * const { results } = await searcher.search({ corpus, queries: ['who wrote hamlet'], topk: 3 });
 */
export class CorpusSearcher {
  readonly #indexes = new Map<string, { version: string; loading: Promise<LoadedIndex> }>();
  /** Corpora as last read, by the name asked for ('' for none), so a search costs no query to find its corpus. */
  readonly #corpora = new Map<string, { corpus: CorpusRef; at: number }>();
  readonly #parameters: Bm25Parameters;
  readonly #refreshMs: number;
  readonly #passageMemory: MemoryBudget;

  /**
   * `refreshMs` is how long a corpus as read is reused before it is read again (default 1 s): an import is
   * seen by searches that start that much later. `passageMemoryBytes` bounds the passages kept in memory, all
   * corpora together (default 1 GiB; 0 reads every hit from the database).
   */
  constructor(
    private readonly prisma: PrismaClient,
    options: { parameters?: Bm25Parameters; refreshMs?: number; passageMemoryBytes?: number } = {},
  ) {
    this.#parameters = options.parameters ?? PYSERINI_BM25;
    this.#refreshMs = options.refreshMs ?? 1_000;
    this.#passageMemory = new MemoryBudget(options.passageMemoryBytes ?? DEFAULT_PASSAGE_MEMORY_BYTES);
  }

  /** The passages kept in memory, per corpus id, and the bytes they hold (for tests and the server's log). */
  async passagesInMemory(): Promise<{ corpusId: string; kept: number; bytes: number }[]> {
    const loaded = await Promise.all(
      [...this.#indexes].map(async ([corpusId, { loading }]) => ({ corpusId, index: await loading })),
    );
    return loaded.map(({ corpusId, index }) => ({
      corpusId,
      kept: index.passages.kept,
      bytes: index.passages.bytes,
    }));
  }

  /**
   * Which corpus a search without a name uses: the only one imported. Throws CorpusChoiceError when there are
   * none or several, and UnknownCorpusError for a name not imported.
   */
  async resolveCorpus(name: string | undefined): Promise<CorpusRef> {
    const cached = this.#corpora.get(name ?? '');
    if (cached && performance.now() - cached.at < this.#refreshMs) return cached.corpus;
    const corpus = await this.#readCorpus(name);
    this.#corpora.set(name ?? '', { corpus, at: performance.now() });
    return corpus;
  }

  async #readCorpus(name: string | undefined): Promise<CorpusRef> {
    const select = { id: true, name: true, documentCount: true, stemmer: true, updatedAt: true } as const;
    if (name !== undefined) {
      const corpus = await this.prisma.retrievalCorpus.findUnique({ where: { name }, select });
      if (corpus) return corpus;
      throw new UnknownCorpusError(name, await this.#names());
    }
    const corpora = await this.prisma.retrievalCorpus.findMany({ select, take: 2, orderBy: { name: 'asc' } });
    if (corpora.length === 1) return corpora[0]!;
    throw new CorpusChoiceError(corpora.length === 0 ? [] : await this.#names());
  }

  /**
   * Builds every imported corpus's index now rather than on its first search (which would wait for it: about
   * 2 minutes for 1M passages on a busy 2-core machine). Resolves to what was built.
   */
  async warm(): Promise<{ name: string; documents: number }[]> {
    const corpora = await this.prisma.retrievalCorpus.findMany({
      select: { id: true, name: true, documentCount: true, stemmer: true, updatedAt: true },
      orderBy: { name: 'asc' },
    });
    const built: { name: string; documents: number }[] = [];
    for (const corpus of corpora) {
      const { index } = await this.#index(corpus);
      built.push({ name: corpus.name, documents: index.documents });
    }
    return built;
  }

  /** The `topk` best passages of the corpus for each query. */
  async search(options: {
    corpus: CorpusRef;
    queries: readonly string[];
    topk: number;
  }): Promise<CorpusSearch> {
    const { corpus } = options;
    const { index, lines, passages } = await this.#index(corpus);
    const hits: Bm25Hit[][] = [];
    for (const query of options.queries) {
      hits.push(index.search(query, options.topk));
      // Searching is synchronous: a batch of a thousand queries lets other requests through between queries.
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Passages past the memory bound are read from the database, in one query for the whole batch.
    const wanted = [
      ...new Set(
        hits.flatMap((list) => list.filter((hit) => hit.doc >= passages.kept).map((hit) => lines[hit.doc]!)),
      ),
    ];
    const rows =
      wanted.length === 0
        ? []
        : await this.prisma.retrievalDocument.findMany({
            where: { corpusId: corpus.id, line: { in: wanted } },
            select: { line: true, docId: true, contents: true },
          });
    const byLine = new Map(rows.map((row) => [row.line, { id: row.docId, contents: row.contents }]));
    const results = hits.map((list) =>
      list.flatMap((hit) => {
        const passage = passages.get(hit.doc) ?? byLine.get(lines[hit.doc]!);
        // A passage deleted since the index was built (its corpus re-imported) is simply left out.
        return passage ? [{ id: passage.id, contents: passage.contents, score: hit.score }] : [];
      }),
    );
    return { corpus: { id: corpus.id, name: corpus.name }, results };
  }

  async #names(): Promise<string[]> {
    const corpora = await this.prisma.retrievalCorpus.findMany({
      select: { name: true },
      orderBy: { name: 'asc' },
    });
    return corpora.map((corpus) => corpus.name);
  }

  #index(corpus: CorpusRef): Promise<LoadedIndex> {
    const version = `${corpus.documentCount}@${corpus.updatedAt.getTime()}/${corpus.stemmer}`;
    const cached = this.#indexes.get(corpus.id);
    if (cached?.version === version) return cached.loading;
    // The index replaced gives its passages' memory back (searches still using it keep their copy alive).
    if (cached)
      void cached.loading.then(
        ({ passages }) => passages.release(),
        () => undefined,
      );
    const loading = this.#load(corpus.id, corpus.stemmer as Stemmer);
    this.#indexes.set(corpus.id, { version, loading });
    // A failed load (the database went away) must not stay cached.
    loading.catch(() => {
      if (this.#indexes.get(corpus.id)?.loading === loading) this.#indexes.delete(corpus.id);
    });
    return loading;
  }

  async #load(corpusId: string, stemmer: Stemmer): Promise<LoadedIndex> {
    const builder = new Bm25IndexBuilder({ stemmer });
    const lines: number[] = [];
    const passages = new PassageStore(this.#passageMemory);
    // Raw rows (Prisma's model mapping cost more than the database). A page is read whole before it is indexed,
    // never ahead: a page asked for while this loop tokenizes is read from its socket only at the loop's yields,
    // and Postgres, waiting to send it, counts that against the statement timeout. At 1M passages on a loaded
    // machine a read ahead failed so (the first search answered 503). The cost: reading no longer overlaps indexing.
    const page = (after: number) => this.prisma.$queryRaw<
      { line: number; doc_id: string; contents: string }[]
    >`
      SELECT "line", "doc_id", "contents" FROM "retrieval_document"
      WHERE "corpus_id" = ${corpusId}::uuid AND "line" > ${after}::int
      ORDER BY "line" LIMIT ${LOAD_BATCH}::int`;
    try {
      for (let after = 0; ;) {
        const batch = await page(after);
        for (const [index, row] of batch.entries()) {
          builder.add(row.contents);
          lines.push(row.line);
          passages.add(row.doc_id, row.contents);
          // Building a big corpus's index takes seconds of CPU: let the server's other requests through.
          if (index % YIELD_EVERY === YIELD_EVERY - 1) await new Promise((resolve) => setImmediate(resolve));
        }
        if (batch.length < LOAD_BATCH) break;
        after = batch[batch.length - 1]!.line;
      }
    } catch (error) {
      passages.release();
      throw error;
    }
    return {
      index: builder.build(this.#parameters),
      lines: Int32Array.from(lines),
      passages: passages.seal(),
    };
  }
}
