'use client';

import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useCallback, useMemo } from 'react';
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
  const params = useMemo(() => parseBrowserParams(new URLSearchParams(search.toString())), [search]);
  const update = useCallback(
    (patch: Partial<BrowserParams>, options: { push?: boolean } = {}) => {
      const next = browserSearch({ ...params, ...patch });
      const url = next ? `${pathname}?${next}` : pathname;
      if (options.push) router.push(url, { scroll: false });
      else router.replace(url, { scroll: false });
    },
    [params, pathname, router],
  );
  return [params, update];
}
