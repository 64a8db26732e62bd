'use client';

import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { ChoiceFilter } from '~/components/choice-filter';
import { EmptyState, Loading, ProblemCard } from '~/components/query-state';
import { useQueryParams } from '~/components/use-query-params';
import { InfiniteList } from '~/components/infinite-list';
import { formatMs, formatTime } from '~/components/format';
import { useTRPC } from '~/trpc/client';

/** A call's returned documents, per query: `id (score)`, best first. */
function describeResults(results: { id: string; score: number }[][] | null): string {
  if (!results) return '';
  return results
    .map((documents) => documents.map((doc) => `${doc.id} (${doc.score.toFixed(2)})`).join(', ') || '—')
    .join(' | ');
}

/**
 * The corpora /retrieve and search sessions search, and every /retrieve call newest first: what was asked, what
 * came back with its scores, or why it was refused. Filters (corpus, refused only) live in the URL.
 */
export function RetrievalCalls() {
  const trpc = useTRPC();
  const { search, set, pending } = useQueryParams();
  const corpus = search.get('corpus') ?? undefined;
  const refused = search.get('refused') === 'yes';
  const corpora = useQuery(trpc.retrieval.corpora.queryOptions());
  const list = useInfiniteQuery(
    trpc.retrieval.calls.infiniteQueryOptions(
      { limit: 100, ...(corpus ? { corpus } : {}), ...(refused ? { refused } : {}) },
      { getNextPageParam: (page) => page.nextCursor },
    ),
  );
  return (
    <>
      {corpora.data && corpora.data.length > 0 ? (
        <table className="retrieval-corpora" aria-label="corpora">
          <thead>
            <tr>
              <th>corpus</th>
              <th>passages</th>
              <th>rejected lines</th>
              <th>calls</th>
              <th>imported from</th>
            </tr>
          </thead>
          <tbody>
            {corpora.data.map((row) => (
              <tr key={row.name}>
                <td>{row.name}</td>
                <td>{row.documentCount.toLocaleString('en-US')}</td>
                <td>{row.linesRejected}</td>
                <td>{row._count.calls}</td>
                <td>{row.sourcePath}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <form className="filter-bar" aria-label="filters" onSubmit={(event) => event.preventDefault()}>
        <ChoiceFilter
          label="corpus"
          value={corpus}
          choices={corpora.data?.map((row) => row.name) ?? []}
          onChange={(value) => set('corpus', value)}
        />
        <ChoiceFilter
          label="status"
          value={refused ? 'refused' : undefined}
          choices={['refused']}
          onChange={(value) => set('refused', value ? 'yes' : '')}
        />
      </form>
      {list.isPending ? (
        <Loading what="retrieve calls" />
      ) : list.isError ? (
        <ProblemCard error={list.error} what="Retrieve calls" />
      ) : list.data.pages[0]?.items.length === 0 ? (
        <EmptyState title={corpus || refused ? 'No call matches these filters' : 'No /retrieve calls yet'}>
          <p>
            Import a corpus with <code>fusebox corpus import FILE.jsonl</code> and point verl&apos;s
            SearchTool (<code>retrieval_service_url</code>) at this server&apos;s <code>/retrieve</code>.
          </p>
        </EmptyState>
      ) : (
        <InfiniteList
          busy={pending}
          label="retrieve calls"
          query={list}
          rowHeight={36}
          columns={['time', 'corpus', 'status', 'took', 'queries', 'documents (score)']}
          columnsClass="retrieval-row"
          renderRow={(item) => (
            <div className="row retrieval-row">
              <span>{formatTime(item.createdAt)}</span>
              <span>{item.corpusName || '—'}</span>
              <span>
                <span className={`badge ${item.status === 200 ? 'ok' : 'error'}`} title={item.error ?? ''}>
                  {item.status}
                </span>
              </span>
              <span>{formatMs(item.durationMs)}</span>
              <span className="ellipsis" title={item.queries.join('\n')}>
                {item.queries.join(' | ')}
              </span>
              <span className="ellipsis">{item.error ?? describeResults(item.results)}</span>
            </div>
          )}
        />
      )}
    </>
  );
}
