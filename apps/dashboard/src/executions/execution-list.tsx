'use client';

import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { Link } from '~/components/link';
import { ChoiceFilter } from '~/components/choice-filter';
import { DebouncedInput } from '~/components/debounced-input';
import { EmptyState, Loading, ProblemCard } from '~/components/query-state';
import { type ApiAddress, FirstExecution } from '~/components/first-execution';
import { useQueryParams } from '~/components/use-query-params';
import { InfiniteList } from '~/components/infinite-list';
import { formatMs, formatTime } from '~/components/format';
import { liveOnFirstPage } from '~/components/live-first-page';
import { useRefetchOnChange } from '~/components/use-refetch-on-change';
import { useTRPC } from '~/trpc/client';
import { useSubscription } from '@trpc/tanstack-react-query';
import { STATUSES, executionListInput, executionListParams } from './execution-list-params';

const outOfMemory = (item: { status: string; returnCode: number | null; runStatus: string | null }) =>
  item.status === 'Failed' && item.returnCode === 137 && item.runStatus !== 'TimeLimitExceeded';

/**
 * Every execution, newest or slowest first, filtered by status, language, time range, session and text in its
 * code or output, all in the URL.
 */
export function ExecutionList({ api }: { api: ApiAddress }) {
  const trpc = useTRPC();
  const { search, set, pending } = useQueryParams();
  const params = executionListParams(search);
  const { status, language, session, from, to, text, slowest } = params;
  const languages = useQuery(trpc.executions.languages.queryOptions());
  const list = useInfiniteQuery(
    trpc.executions.list.infiniteQueryOptions(executionListInput(params), {
      getNextPageParam: (page) => page.nextCursor,
    }),
  );
  // New executions arrive over SSE (executions.changes) while only the first page is loaded; no polling.
  const live = useSubscription(
    trpc.executions.changes.subscriptionOptions(undefined, { enabled: liveOnFirstPage(list.data) }),
  );
  useRefetchOnChange(live.data?.id, [trpc.executions.list.pathKey()]);
  const filtered = Boolean(status || language || session || from || to || text);
  return (
    <>
      <form className="filter-bar" aria-label="filters" onSubmit={(event) => event.preventDefault()}>
        <DebouncedInput
          type="search"
          label="search code and output"
          placeholder="text in the code or output"
          value={text}
          parse={(typed) => typed.trim() || undefined}
          onCommit={(value) => set('q', value ?? '')}
        />
        <label>
          sort{' '}
          <select
            aria-label="sort"
            value={slowest ? 'slowest' : 'newest'}
            onChange={(event) => set('sort', event.target.value === 'slowest' ? 'slowest' : '')}
          >
            <option value="newest">newest first</option>
            <option value="slowest">slowest first</option>
          </select>
        </label>
        <ChoiceFilter
          label="status"
          value={status}
          choices={STATUSES}
          onChange={(value) => set('status', value)}
        />
        <ChoiceFilter
          label="language"
          value={language}
          choices={languages.data ?? []}
          onChange={(value) => set('language', value)}
        />
        <label>
          from{' '}
          <input
            type="datetime-local"
            aria-label="from"
            defaultValue={search.get('from') ?? ''}
            onChange={(event) => set('from', event.target.value)}
          />
        </label>
        <label>
          to{' '}
          <input
            type="datetime-local"
            aria-label="to"
            defaultValue={search.get('to') ?? ''}
            onChange={(event) => set('to', event.target.value)}
          />
        </label>
        <label>
          session{' '}
          <input
            aria-label="session"
            placeholder="sid"
            defaultValue={session ?? ''}
            onBlur={(event) => set('session', event.target.value.trim())}
          />
        </label>
      </form>
      {list.isPending ? (
        <Loading what="executions" />
      ) : list.isError ? (
        <ProblemCard error={list.error} what="Executions" />
      ) : list.data.pages[0]?.items.length === 0 ? (
        <EmptyState title={filtered ? 'No execution matches these filters' : 'No executions yet'}>
          {filtered ? <p>Loosen a filter above.</p> : <FirstExecution api={api} />}
        </EmptyState>
      ) : (
        <InfiniteList
          busy={pending}
          label="executions"
          query={list}
          rowHeight={36}
          columns={['requested', 'source', 'language', 'status', 'run', 'queue wait', 'session']}
          columnsClass="execution-row"
          renderRow={(item) => (
            <Link href={`/executions/${item.id}`} className="row execution-row">
              <span>{formatTime(item.requestedAt)}</span>
              <span>{item.source}</span>
              <span>{item.language}</span>
              <span>
                <span className={`badge ${item.status === 'Success' ? 'ok' : 'error'}`}>
                  {outOfMemory(item) ? 'Failed · out of memory' : item.status}
                </span>
              </span>
              <span>{formatMs(item.runMs === null ? null : item.runMs + (item.compileMs ?? 0))}</span>
              <span>{formatMs(item.queueWaitMs)}</span>
              <span title={item.sessionId ?? undefined}>{item.sessionId ?? ''}</span>
            </Link>
          )}
        />
      )}
    </>
  );
}
