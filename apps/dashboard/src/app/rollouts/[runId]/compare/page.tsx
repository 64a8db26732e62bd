import type { Metadata } from 'next';
import { Suspense } from 'react';
import { Loading } from '~/components/query-state';
import { CompareView } from '~/rollouts/compare-view';

export const metadata: Metadata = { title: 'Compare samples' };

export default async function ComparePage({ params }: { params: Promise<{ runId: string }> }) {
  const { runId } = await params;
  return (
    <>
      <h1>Compare samples</h1>
      <Suspense fallback={<Loading what="the samples" />}>
        <CompareView runId={runId} />
      </Suspense>
    </>
  );
}
