'use client';

import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { startTransition, useCallback, useEffect, useMemo, useTransition } from 'react';
import { baseSearch, navigating, settle } from '~/components/pending-search';
import { type BrowserParams, browserSearch, parseBrowserParams } from './browser-params';

/** Parameters that choose a sample in the list, or how it is shown, without changing the list. */
const SAMPLE_ONLY: ReadonlySet<string> = new Set<keyof BrowserParams>(['line', 'raw']);

/**
 * The rollout browser's state, read from and written to the URL. Moving between samples replaces the history
 * entry (so Back leaves the browser instead of replaying every keypress); changing filters pushes one. The third
 * value is true from a change of the list (filters, search, sort, step) until its page arrives; moving between
 * samples leaves it false, so the list does not flicker at every keypress.
 */
export function useBrowserParams(): [
  BrowserParams,
  (patch: Partial<BrowserParams>, options?: { push?: boolean }) => void,
  boolean,
] {
  const search = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const [listPending, startListTransition] = useTransition();
  useEffect(() => settle(pathname, search), [pathname, search]);
  const params = useMemo(() => parseBrowserParams(new URLSearchParams(search.toString())), [search]);
  const update = useCallback(
    (patch: Partial<BrowserParams>, options: { push?: boolean } = {}) => {
      // On the last change's parameters if it has not arrived yet, so that this one does not undo it.
      const base = parseBrowserParams(baseSearch(pathname, search));
      const next = browserSearch({ ...base, ...patch });
      navigating(pathname, search, next);
      const url = next ? `${pathname}?${next}` : pathname;
      const changesList = Object.entries(patch).some(
        ([key, value]) => !SAMPLE_ONLY.has(key) && value !== base[key as keyof BrowserParams],
      );
      (changesList ? startListTransition : startTransition)(() => {
        if (options.push) router.push(url, { scroll: false });
        else router.replace(url, { scroll: false });
      });
    },
    [search, pathname, router],
  );
  return [params, update, listPending];
}
