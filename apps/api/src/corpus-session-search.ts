import type { SessionSearch } from '@fusebox/agent-sessions';
import type { Limiter } from '@fusebox/rate-limiter';
import type { CorpusSearcher } from '@fusebox/retrieval';

/**
 * Search sessions search the same corpora, with the same in-memory indexes, as /retrieve, and under the same
 * limiter key: one CorpusSearcher and one limiter per server serve both, so a corpus's index is built once and
 * FUSEBOX_RETRIEVE_MAX_CONCURRENCY counts every search.
 */
export function corpusSessionSearch(searcher: CorpusSearcher, limiter: Limiter): SessionSearch {
  return {
    async search(corpus, query, topk) {
      const resolved = await searcher.resolveCorpus(corpus);
      const found = await limiter.withPermit(() =>
        searcher.search({ corpus: resolved, queries: [query], topk }),
      );
      return found.results[0] ?? [];
    },
  };
}
