'use client';

import type { ReactNode } from 'react';
import { VirtualList } from './virtual-list';

/** What the list needs of a loaded `useInfiniteQuery` whose pages carry `items`. */
export interface LoadedPages<T> {
  data: { pages: { items: T[] }[] };
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => Promise<unknown>;
}

interface InfiniteListProps<T> {
  label: string;
  query: LoadedPages<T>;
  rowHeight: number;
  renderRow: (item: T) => ReactNode;
  /** Column titles, laid out by `columnsClass` (a CSS grid shared with the rows). */
  columns?: string[];
  columnsClass?: string;
  selectedIndex?: (items: T[]) => number;
  /** The rows are about to be replaced (a filter's page is on its way). */
  busy?: boolean;
}

/** A virtualized list over a paginated query: the next page loads as the end of the list comes into view. */
export function InfiniteList<T>({
  label,
  query,
  rowHeight,
  renderRow,
  columns,
  columnsClass,
  selectedIndex,
  busy = false,
}: InfiniteListProps<T>) {
  const items = query.data.pages.flatMap((page) => page.items);
  return (
    <>
      {columns ? (
        <div className={`row table-head ${columnsClass ?? ''}`} aria-hidden="true">
          {columns.map((column) => (
            <span key={column}>{column}</span>
          ))}
        </div>
      ) : null}
      <VirtualList
        label={label}
        count={items.length}
        hasMore={query.hasNextPage}
        loadingMore={query.isFetchingNextPage}
        loadMore={() => void query.fetchNextPage()}
        rowHeight={rowHeight}
        busy={busy}
        {...(selectedIndex ? { selectedIndex: selectedIndex(items) } : {})}
        renderRow={(index) => renderRow(items[index]!)}
      />
    </>
  );
}
