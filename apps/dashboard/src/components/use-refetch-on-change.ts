'use client';

import { type QueryKey, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';

/**
 * Refetches the queries under `queryKeys` each time a live view's SSE subscription reports a new version (the
 * `tracked` id of its last event). The first version seen is what the page was rendered with, so it refetches
 * nothing; a subscription paused and resumed catches up with the first event after.
 */
export function useRefetchOnChange(version: string | undefined, queryKeys: readonly QueryKey[]): void {
  const queryClient = useQueryClient();
  const seen = useRef<string | null>(null);
  useEffect(() => {
    if (version === undefined) return;
    const first = seen.current === null;
    const changed = seen.current !== version;
    seen.current = version;
    if (first || !changed) return;
    for (const queryKey of queryKeys) void queryClient.invalidateQueries({ queryKey });
    // The keys are new arrays each render; the version guard keeps a rerender from refetching.
  }, [version, queryClient, queryKeys]);
}
