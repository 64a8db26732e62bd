import { RetrievalError } from './retrieval-error';

/** A search named a corpus that has not been imported. */
export class UnknownCorpusError extends RetrievalError {
  readonly code = 'FUSEBOX_RETRIEVAL_UNKNOWN_CORPUS';

  constructor(
    readonly corpus: string,
    known: readonly string[],
  ) {
    super(
      known.length === 0
        ? `no corpus named "${corpus}": none is imported yet (fusebox corpus import FILE.jsonl)`
        : `no corpus named "${corpus}"; imported: ${known.map((name) => `"${name}"`).join(', ')}`,
    );
    this.name = 'UnknownCorpusError';
  }
}
