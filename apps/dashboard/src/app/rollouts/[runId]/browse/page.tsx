import { Suspense } from 'react';
import { Loading } from '~/components/query-state';
import { RolloutBrowser } from '~/rollouts/rollout-browser';

export default async function BrowsePage({ params }: { params: Promise<{ runId: string }> }) {
  const { runId } = await params;
  return (
    <Suspense fallback={<Loading what="the browser" />}>
      <RolloutBrowser runId={runId} />
    </Suspense>
  );
}
