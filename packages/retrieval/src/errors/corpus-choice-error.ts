import { RetrievalError } from './retrieval-error';

/** A search named no corpus, and there is not exactly one to search. */
export class CorpusChoiceError extends RetrievalError {
  readonly code = 'FUSEBOX_RETRIEVAL_CORPUS_CHOICE';

  constructor(known: readonly string[]) {
    super(
      known.length === 0
        ? 'no corpus is imported yet; import one with `fusebox corpus import FILE.jsonl`'
        : `${known.length} corpora are imported (${known.map((name) => `"${name}"`).join(', ')}); ` +
            'name one in the path (/retrieve/NAME) or with FUSEBOX_RETRIEVE_CORPUS',
    );
    this.name = 'CorpusChoiceError';
  }
}
