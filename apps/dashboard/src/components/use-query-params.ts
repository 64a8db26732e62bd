'use client';

import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useCallback, useEffect, useTransition } from 'react';
import { baseSearch, navigating, settle } from './pending-search';

/**
 * The page's query string, and a setter for one parameter (an empty value removes it). Filter changes push a
 * history entry, so Back undoes them; `replace` suits choices that should not pile up in history. `pending` is
 * true from a change until its page arrives: the old rows stay on screen meanwhile, and should say so.
 */
export function useQueryParams() {
  const search = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const [pending, startTransition] = useTransition();
  useEffect(() => settle(pathname, search), [pathname, search]);
  const set = useCallback(
    (name: string, value: string, options: { replace?: boolean } = {}) => {
      const next = baseSearch(pathname, search);
      if (value) next.set(name, value);
      else next.delete(name);
      navigating(pathname, search, next.toString());
      const url = `${pathname}?${next.toString()}`;
      startTransition(() => {
        if (options.replace) router.replace(url, { scroll: false });
        else router.push(url, { scroll: false });
      });
    },
    [search, router, pathname],
  );
  return { search, set, pending };
}
