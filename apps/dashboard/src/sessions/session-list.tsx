'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { EmptyState, Loading, ProblemCard } from '~/components/query-state';
import { VirtualList } from '~/components/virtual-list';
import { formatScore, formatTime } from '~/components/format';
import { useTRPC } from '~/trpc/client';

const STATES = ['active', 'postprocessed', 'expired'] as const;

function fraction(count: number | null, total: number | null): string {
  return count === null || total === null ? '–' : `${count}/${total}`;
}

/** Agent sessions (/start_instance … /compute_reward), newest first, filterable by state and errors. */
export function SessionList() {
  const trpc = useTRPC();
  const search = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const state = STATES.find((candidate) => candidate === search.get('state'));
  const errors = search.get('errors');
  const set = (name: string, value: string) => {
    const next = new URLSearchParams(search.toString());
    if (value) next.set(name, value);
    else next.delete(name);
    router.push(`${pathname}?${next.toString()}`, { scroll: false });
  };
  const list = useInfiniteQuery(
    trpc.sessions.list.infiniteQueryOptions(
      { limit: 100, ...(state ? { state } : {}), ...(errors ? { hasErrors: errors === 'yes' } : {}) },
      { getNextPageParam: (page) => page.nextCursor },
    ),
  );
  return (
    <>
      <form className="filter-bar" aria-label="filters" onSubmit={(event) => event.preventDefault()}>
        <label>
          state{' '}
          <select
            aria-label="state"
            value={state ?? ''}
            onChange={(event) => set('state', event.target.value)}
          >
            <option value="">any</option>
            {STATES.map((value) => (
              <option key={value}>{value}</option>
            ))}
          </select>
        </label>
        <label>
          errors{' '}
          <select
            aria-label="errors"
            value={errors ?? ''}
            onChange={(event) => set('errors', event.target.value)}
          >
            <option value="">any</option>
            <option value="yes">with errors</option>
            <option value="no">without</option>
          </select>
        </label>
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
        (() => {
          const items = list.data.pages.flatMap((page) => page.items);
          return (
            <>
              <div className="row table-head session-row" aria-hidden="true">
                <span>sid</span>
                <span>task</span>
                <span>state</span>
                <span>actions</span>
                <span>errors</span>
                <span>reward</span>
                <span>f2p</span>
                <span>created</span>
              </div>
              <VirtualList
                label="sessions"
                count={items.length}
                hasMore={list.hasNextPage}
                loadingMore={list.isFetchingNextPage}
                loadMore={() => void list.fetchNextPage()}
                rowHeight={36}
                renderRow={(index) => {
                  const item = items[index]!;
                  return (
                    <Link href={`/sessions/${item.id}`} className="row session-row">
                      <span>{item.id}</span>
                      <span>{item.task.name}</span>
                      <span>{item.state}</span>
                      <span>{item.actionCount}</span>
                      <span className={item.errorCount ? 'bad-text' : ''}>{item.errorCount}</span>
                      <span>{formatScore(item.reward)}</span>
                      <span>{fraction(item.f2pCount, item.f2pTotal)}</span>
                      <span>{formatTime(item.createdAt)}</span>
                    </Link>
                  );
                }}
              />
            </>
          );
        })()
      )}
    </>
  );
}
