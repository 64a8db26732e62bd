'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { useEffect, useRef } from 'react';
import { useTRPC } from '~/trpc/client';

/**
 * Keeps a run's views live while training writes it: the server sends the run's import progress over SSE when
 * it changes, and every rollout query of the page is asked again (a new step joins the step list, new lines
 * join the list, charts and group counts move), without a reload.
 */
export function useRunLive(runId: string): void {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const live = useSubscription(trpc.rolloutAnalysis.runChanges.subscriptionOptions({ runId }));
  const version = live.data?.id;
  const seen = useRef<string | null>(null);
  useEffect(() => {
    if (version === undefined) return;
    const first = seen.current === null;
    seen.current = version;
    // The first event is what the page was rendered with.
    if (first) return;
    void queryClient.invalidateQueries({ queryKey: trpc.rollouts.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.rolloutAnalysis.pathKey() });
  }, [version, queryClient, trpc]);
}
