'use client';

import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useCallback, useEffect, useMemo } from 'react';
import { baseSearch, navigating, settle } from '~/components/pending-search';
import { type BrowserParams, browserSearch, parseBrowserParams } from './browser-params';

/**
 * The rollout browser's state, read from and written to the URL. Moving between samples replaces the history
 * entry (so Back leaves the browser instead of replaying every keypress); changing filters pushes one.
 */
export function useBrowserParams(): [
  BrowserParams,
  (patch: Partial<BrowserParams>, options?: { push?: boolean }) => void,
] {
  const search = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  useEffect(() => settle(pathname, search), [pathname, search]);
  const params = useMemo(() => parseBrowserParams(new URLSearchParams(search.toString())), [search]);
  const update = useCallback(
    (patch: Partial<BrowserParams>, options: { push?: boolean } = {}) => {
      // On the last change's parameters if it has not arrived yet, so that this one does not undo it.
      const next = browserSearch({ ...parseBrowserParams(baseSearch(pathname, search)), ...patch });
      navigating(pathname, search, next);
      const url = next ? `${pathname}?${next}` : pathname;
      if (options.push) router.push(url, { scroll: false });
      else router.replace(url, { scroll: false });
    },
    [search, pathname, router],
  );
  return [params, update];
}
