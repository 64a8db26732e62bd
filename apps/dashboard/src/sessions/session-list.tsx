'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import { Link } from '~/components/link';
import { ChoiceFilter } from '~/components/choice-filter';
import { EmptyState, Loading, ProblemCard } from '~/components/query-state';
import { useQueryParams } from '~/components/use-query-params';
import { InfiniteList } from '~/components/infinite-list';
import { formatScore, formatTime } from '~/components/format';
import { liveOnFirstPage } from '~/components/live-first-page';
import { useRefetchOnChange } from '~/components/use-refetch-on-change';
import { useTRPC } from '~/trpc/client';
import { useSubscription } from '@trpc/tanstack-react-query';

const STATES = ['active', 'postprocessed', 'expired'] as const;

function fraction(count: number | null, total: number | null): string {
  return count === null || total === null ? '–' : `${count}/${total}`;
}

/** Agent sessions (/start_instance … /compute_reward), newest first, filterable by state and errors. */
export function SessionList() {
  const trpc = useTRPC();
  const { search, set, pending } = useQueryParams();
  const state = STATES.find((candidate) => candidate === search.get('state'));
  const errors = search.get('errors');
  const list = useInfiniteQuery({
    ...trpc.sessions.list.infiniteQueryOptions(
      { limit: 100, ...(state ? { state } : {}), ...(errors ? { hasErrors: errors === 'yes' } : {}) },
      { getNextPageParam: (page) => page.nextCursor },
    ),
  });
  // New sessions arrive over SSE (sessions.changes) while only the first page is loaded; no polling.
  const live = useSubscription(
    trpc.sessions.changes.subscriptionOptions(undefined, { enabled: liveOnFirstPage(list.data) }),
  );
  useRefetchOnChange(live.data?.id, [trpc.sessions.list.pathKey()]);
  return (
    <>
      <form className="filter-bar" aria-label="filters" onSubmit={(event) => event.preventDefault()}>
        <ChoiceFilter
          label="state"
          value={state}
          choices={STATES}
          onChange={(value) => set('state', value)}
        />
        <ChoiceFilter
          label="errors"
          value={errors ?? undefined}
          choices={[
            ['yes', 'with errors'],
            ['no', 'without'],
          ]}
          onChange={(value) => set('errors', value)}
        />
      </form>
      {list.isPending ? (
        <Loading what="sessions" />
      ) : list.isError ? (
        <ProblemCard error={list.error} what="Sessions" />
      ) : list.data.pages[0]?.items.length === 0 ? (
        <EmptyState title="No sessions yet">
          <p>
            Sessions appear when an agent rollout calls <code>/start_instance</code> with a task&apos;s
            <code> instance_hash</code>; import tasks first with <code>fusebox tasks import FILE</code>.
          </p>
        </EmptyState>
      ) : (
        <InfiniteList
          busy={pending}
          label="sessions"
          query={list}
          rowHeight={36}
          columns={['sid', 'task', 'state', 'actions', 'errors', 'reward', 'f2p', 'created']}
          columnsClass="session-row"
          renderRow={(item) => (
            <Link href={`/sessions/${item.id}`} className="row session-row">
              <span title={item.id}>{item.id}</span>
              <span title={item.task.name}>{item.task.name}</span>
              <span>{item.state}</span>
              <span>{item.actionCount}</span>
              <span className={item.errorCount ? 'bad-text' : ''}>{item.errorCount}</span>
              <span>{formatScore(item.reward)}</span>
              <span>{fraction(item.f2pCount, item.f2pTotal)}</span>
              <span>{formatTime(item.createdAt)}</span>
            </Link>
          )}
        />
      )}
    </>
  );
}
