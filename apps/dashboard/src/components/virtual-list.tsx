'use client';

import { useVirtualizer } from '@tanstack/react-virtual';
import { type ReactNode, useEffect, useRef } from 'react';

/** The height, in pixels, assumed for the list until it is measured. */
const INITIAL_HEIGHT = 1_000;

interface VirtualListProps {
  label: string;
  /** Rows loaded so far. */
  count: number;
  hasMore: boolean;
  loadingMore: boolean;
  loadMore: () => void;
  rowHeight: number;
  renderRow: (index: number) => ReactNode;
  /** Kept in view when it changes (keyboard navigation). */
  selectedIndex?: number;
  /** The rows are about to be replaced: shown dimmed, and told to assistive technology. */
  busy?: boolean;
}

/**
 * A list that renders only the rows in view, and asks for the next page as the end comes into view: a step of
 * 100,000 samples scrolls like one of ten.
 */
export function VirtualList({
  label,
  count,
  hasMore,
  loadingMore,
  loadMore,
  rowHeight,
  renderRow,
  selectedIndex,
  busy = false,
}: VirtualListProps) {
  const parent = useRef<HTMLDivElement>(null);
  // eslint-disable-next-line react-hooks/incompatible-library -- TanStack Virtual is not compiled by React Compiler; nothing here is memoised by it.
  const virtualizer = useVirtualizer({
    count: count + (hasMore ? 1 : 0),
    getScrollElement: () => parent.current,
    estimateSize: () => rowHeight,
    overscan: 8,
    // Before the list is measured (on the server, and in the hydration that must match it), rows as for a tall
    // window: so the first rows come with the page instead of after hydration and a measurement.
    initialRect: { width: 0, height: INITIAL_HEIGHT },
  });
  const items = virtualizer.getVirtualItems();
  const last = items.at(-1);
  useEffect(() => {
    if (last && last.index >= count - 1 && hasMore && !loadingMore) loadMore();
  }, [last, count, hasMore, loadingMore, loadMore]);
  useEffect(() => {
    if (selectedIndex !== undefined && selectedIndex >= 0)
      virtualizer.scrollToIndex(selectedIndex, { align: 'auto' });
  }, [selectedIndex, virtualizer]);
  return (
    <div ref={parent} className="virtual-list" role="list" aria-label={label} aria-busy={busy}>
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {items.map((item) => (
          <div
            key={item.key}
            role="listitem"
            style={{
              position: 'absolute',
              top: 0,
              left: 0,
              right: 0,
              height: item.size,
              transform: `translateY(${item.start}px)`,
            }}
          >
            {item.index < count ? (
              renderRow(item.index)
            ) : (
              <div className="row loading-row">Loading more…</div>
            )}
          </div>
        ))}
      </div>
    </div>
  );
}
