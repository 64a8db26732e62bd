'use client';

import { useSubscription } from '@trpc/tanstack-react-query';
import { useRefetchOnChange } from '~/components/use-refetch-on-change';
import { useTRPC } from '~/trpc/client';

/**
 * Keeps a run's views live while training writes it: the server sends the run's import progress over SSE when
 * it changes, and every rollout query of the page is asked again (a new step joins the step list, new lines
 * join the list, charts and group counts move), without a reload.
 */
export function useRunLive(runId: string): void {
  const trpc = useTRPC();
  const live = useSubscription(trpc.rolloutAnalysis.runChanges.subscriptionOptions({ runId }));
  useRefetchOnChange(
    live.data?.id,
    [trpc.rollouts.pathKey(), trpc.rolloutAnalysis.pathKey()],
    live.data?.data.changedLately,
  );
}
