export { bm25Terms, DEFAULT_STEMMER, MAX_TERM_LENGTH, STEMMERS, type Stemmer } from './bm25-terms';
export { type Bm25Hit, Bm25Index, Bm25IndexBuilder, type Bm25Parameters, PYSERINI_BM25 } from './bm25-index';
export { type CorpusDocument, parseCorpusLine } from './corpus-line';
export {
  type CorpusImportProgress,
  type CorpusImportSummary,
  type CorpusProblem,
  type ImportCorpusOptions,
  importCorpus,
} from './import-corpus';
export {
  type CorpusRef,
  type CorpusSearch,
  CorpusSearcher,
  DEFAULT_PASSAGE_MEMORY_BYTES,
  type RetrievedDocument,
} from './corpus-searcher';
export { CorpusChoiceError } from './errors/corpus-choice-error';
export { CorpusImportError } from './errors/corpus-import-error';
export { UnknownCorpusError } from './errors/unknown-corpus-error';
export {
  RETRIEVAL_ERROR_CODES,
  type RetrievalErrorCode,
  RetrievalError,
  isRetrievalError,
} from './errors/retrieval-error';
