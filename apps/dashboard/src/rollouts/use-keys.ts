'use client';

import { useEffect, useRef, useSyncExternalStore } from 'react';

const noSubscription = () => () => {};

/**
 * Single-key shortcuts for the page (n, p, N, P, /, f, j, k…). They are ignored while the user types in a
 * field, except Escape, which leaves the field so the keys work again. Returns whether they work yet: the page
 * comes from the server and is on screen before hydration attaches them.
 */
export function useKeys(handlers: Record<string, () => void>): boolean {
  // False on the server and through hydration, true from the render after it: when the listener below is on.
  const live = useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
  const latest = useRef(handlers);
  useEffect(() => {
    latest.current = handlers;
  });
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      const target = event.target as HTMLElement | null;
      const typing = target?.closest('input, textarea, select, [contenteditable="true"]');
      if (typing) {
        if (event.key === 'Escape') (typing as HTMLElement).blur();
        return;
      }
      const handler = latest.current[event.key];
      if (!handler) return;
      event.preventDefault();
      handler();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  return live;
}
