'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import { Link } from '~/components/link';
import { EmptyState, Loading, ProblemCard } from '~/components/query-state';
import { InfiniteList } from '~/components/infinite-list';
import { formatScore } from '~/components/format';
import { useTRPC } from '~/trpc/client';
import { type BrowserParams, browserSearch } from './browser-params';

const PAGE = 50;

/** The hits of a full-text search across every step, each with its matches marked in a snippet. */
/** The search's pages; the browser reads the same cache to step through hits with n and p. */
export function useSearchHits(runId: string, q: string) {
  const trpc = useTRPC();
  return useInfiniteQuery({
    ...trpc.rollouts.search.infiniteQueryOptions(
      { runId, q, limit: PAGE },
      { getNextPageParam: (page) => page.nextCursor },
    ),
    enabled: q.trim() !== '',
  });
}

export function SearchResults({ runId, params }: { runId: string; params: BrowserParams }) {
  const search = useSearchHits(runId, params.q);
  if (search.isPending) return <Loading what="search results" />;
  if (search.isError) return <ProblemCard error={search.error} what="Search" />;
  const first = search.data.pages[0]!;
  if (first.total === 0)
    return (
      <EmptyState title="No matches">
        <p>
          Nothing in this run contains <q>{params.q}</q>. Words match whole and ignoring case; put text with
          punctuation in quotes to match it verbatim.
        </p>
      </EmptyState>
    );
  return (
    <>
      <p className="list-count" aria-live="polite">
        {first.capped ? `${first.total}+` : first.total} matches for <q>{params.q}</q>
      </p>
      {first.phraseCheckedIn ? (
        <p className="muted">
          Quoted text was checked in the first {first.phraseCheckedIn.toLocaleString()} samples that contain
          its words; add a rarer word to search further.
        </p>
      ) : null}
      <InfiniteList
        label="search results"
        query={search}
        rowHeight={84}
        selectedIndex={(list) =>
          list.findIndex((hit) => hit.step === params.step && hit.line === params.line)
        }
        renderRow={(hit) => {
          const current = hit.step === params.step && hit.line === params.line;
          return (
            <Link
              href={`/rollouts/${runId}/browse?${browserSearch({ ...params, step: hit.step, line: hit.line })}`}
              className={`row hit-row ${current ? 'selected' : ''}`}
              aria-current={current ? 'true' : undefined}
              replace
              scroll={false}
            >
              <span className="row-head">
                <strong>
                  step {hit.step} · #{hit.line}
                </strong>{' '}
                <span className="score-chip">{formatScore(hit.score)}</span>{' '}
                <span className="muted">in {hit.where}</span>
              </span>
              <span className="snippet">
                {hit.snippet.map((segment, i) =>
                  segment.match ? <mark key={i}>{segment.text}</mark> : segment.text,
                )}
              </span>
            </Link>
          );
        }}
      />
    </>
  );
}
