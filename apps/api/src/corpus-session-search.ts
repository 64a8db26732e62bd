import type { SessionSearch } from '@fusebox/agent-sessions';
import type { CorpusSearcher } from '@fusebox/retrieval';

/**
 * Search sessions search the same corpora, with the same in-memory indexes, as /retrieve: one CorpusSearcher per
 * server serves both, so a corpus's index is built once.
 */
export function corpusSessionSearch(searcher: CorpusSearcher): SessionSearch {
  return {
    async search(corpus, query, topk) {
      const found = await searcher.search({
        corpus: await searcher.resolveCorpus(corpus),
        queries: [query],
        topk,
      });
      return found.results[0] ?? [];
    },
  };
}
