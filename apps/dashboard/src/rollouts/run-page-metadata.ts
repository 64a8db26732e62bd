import type { Metadata } from 'next';
import { serverTrpc } from '~/trpc/server';

/**
 * A run page's tab title with the run's name (`e2e-run · Rollout samples`), so a row of runs' tabs can be told
 * apart: one small read of the import's bookkeeping. Without an answer (an unknown run, the API down) the tab
 * says what the page is, and the page itself shows the problem.
 */
export async function runPageMetadata(runId: string, page: string): Promise<Metadata> {
  const { queryClient, trpc } = serverTrpc();
  try {
    const { run } = await queryClient.fetchQuery(trpc.rollouts.stepList.queryOptions({ runId }));
    return { title: `${run.name} · ${page}` };
  } catch {
    return { title: page };
  }
}
