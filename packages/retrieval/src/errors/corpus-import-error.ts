import { RetrievalError } from './retrieval-error';

/** A corpus file that cannot be imported (missing, changed since the last import, another corpus's name). */
export class CorpusImportError extends RetrievalError {
  readonly code = 'FUSEBOX_RETRIEVAL_CORPUS_IMPORT';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CorpusImportError';
  }
}
