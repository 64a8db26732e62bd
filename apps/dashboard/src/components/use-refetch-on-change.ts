'use client';

import { type QueryKey, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';

/**
 * Refetches the queries under `queryKeys` each time a live view's SSE subscription reports a new version (the
 * `tracked` id of its last event). The first version seen is taken as what the page was rendered with, so it
 * refetches nothing, unless the server says the data `changedLately`: a change between the render and the
 * stream's first read would otherwise stay unseen until the next one (minutes away, for a run's next step). A
 * subscription paused and resumed catches up with the first event after.
 */
export function useRefetchOnChange(
  version: string | undefined,
  queryKeys: readonly QueryKey[],
  changedLately = false,
): void {
  const queryClient = useQueryClient();
  const seen = useRef<string | null>(null);
  useEffect(() => {
    if (version === undefined) return;
    const first = seen.current === null;
    const changed = seen.current !== version;
    seen.current = version;
    if ((first && !changedLately) || !changed) return;
    for (const queryKey of queryKeys) void queryClient.invalidateQueries({ queryKey });
    // The keys are new arrays each render; the version guard keeps a rerender from refetching.
  }, [version, queryClient, queryKeys, changedLately]);
}
