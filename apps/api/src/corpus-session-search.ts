import type { SessionSearch } from '@fusebox/agent-sessions';
import type { Limiter } from '@fusebox/rate-limiter';
import type { CorpusSearcher } from '@fusebox/retrieval';

/**
 * Search sessions search the same corpora, with the same in-memory indexes, as /retrieve, and under the same
 * limiter key: one CorpusSearcher and one limiter per server serve both, so a corpus's index is built once and
 * FUSEBOX_RETRIEVE_MAX_CONCURRENCY counts every search. A query is held to /retrieve's length limit too: a
 * search costs its distinct words times the passages they reach, and the model writes the query.
 */
export function corpusSessionSearch(
  searcher: CorpusSearcher,
  limiter: Limiter,
  maxQueryChars: number,
): SessionSearch {
  return {
    async search(corpus, query, topk) {
      if (query.length > maxQueryChars)
        throw new Error(
          `a query may have at most ${maxQueryChars} characters (FUSEBOX_RETRIEVE_MAX_QUERY_CHARS); this one has ${query.length}`,
        );
      const resolved = await searcher.resolveCorpus(corpus);
      const found = await limiter.withPermit(() =>
        searcher.search({ corpus: resolved, queries: [query], topk }),
      );
      return found.results[0] ?? [];
    },
  };
}
