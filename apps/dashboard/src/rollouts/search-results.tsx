'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import { Link } from '~/components/link';
import { EmptyState, Loading, ProblemCard } from '~/components/query-state';
import { InfiniteList } from '~/components/infinite-list';
import { formatCount, formatScore } from '~/components/format';
import { useTRPC } from '~/trpc/client';
import { type BrowserParams, browserSearch, searchConditions } from './browser-params';
import { ExportSamples } from './export-samples';

const PAGE = 50;

const QUERY_HELP =
  'Words match the words they begin, ignoring case; put text with punctuation in quotes to match it ' +
  'verbatim; compare fields with score<=0, turns>3 or acc:true; combine with AND, OR, NOT (or -) and ' +
  'parentheses.';

/**
 * The pages of a search across every step under the filter bar's score range and fields; the browser reads
 * the same cache to step through hits with n and p.
 */
export function useSearchHits(runId: string, params: BrowserParams) {
  const trpc = useTRPC();
  return useInfiniteQuery({
    ...trpc.rollouts.search.infiniteQueryOptions(
      { runId, q: params.q, limit: PAGE, ...searchConditions(params) },
      { getNextPageParam: (page) => page.nextCursor },
    ),
    enabled: params.q.trim() !== '',
  });
}

/** The hits of a full-text search across every step, each with its matches marked in a snippet. */
export function SearchResults({ runId, params }: { runId: string; params: BrowserParams }) {
  const search = useSearchHits(runId, params);
  const filtered = params.scoreMin !== undefined || params.scoreMax !== undefined || params.fields.length > 0;
  if (search.isPending) return <Loading what="search results" />;
  if (search.isError)
    return search.error.data?.code === 'BAD_REQUEST' ? (
      <EmptyState title="The query could not be read">
        <p>{search.error.message}.</p>
        <p className="muted">{QUERY_HELP}</p>
      </EmptyState>
    ) : (
      <ProblemCard error={search.error} what="Search" />
    );
  const first = search.data.pages[0]!;
  if (first.total === 0)
    return (
      <EmptyState title="No matches">
        <p>
          Nothing in this run{filtered ? ' under these filters' : ''} matches <q>{params.q}</q>. {QUERY_HELP}
        </p>
      </EmptyState>
    );
  return (
    <>
      <p className="list-count" aria-live="polite">
        {formatCount(first.total, 'match', 'matches', { capped: first.capped })} for <q>{params.q}</q>
        {filtered ? ' under the filters' : ''}{' '}
        <ExportSamples runId={runId} source={{ kind: 'search' }} params={params} />
      </p>
      {first.checkedIn ? (
        <p className="muted">
          Quoted text, fields and filters were checked in the first {first.checkedIn.toLocaleString()}{' '}
          candidate samples (those with every word the query needs); add a rarer word to search further.
        </p>
      ) : null}
      {first.prefixesCut.length > 0 ? (
        <p className="muted">
          {first.prefixesCut.map((prefix) => `“${prefix}”`).join(', ')} begin more than {first.prefixTerms}{' '}
          words; only the first {first.prefixTerms} of each were searched. Type more of the word.
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
