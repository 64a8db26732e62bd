import type { Metadata } from 'next';
import { Suspense } from 'react';
import { Loading } from '~/components/query-state';
import { GroupView } from '~/rollouts/group-view';

export const metadata: Metadata = { title: 'GRPO group' };

export default async function GroupPage({ params }: { params: Promise<{ runId: string }> }) {
  const { runId } = await params;
  return (
    <>
      <h1>GRPO group</h1>
      <Suspense fallback={<Loading what="the group" />}>
        <GroupView runId={runId} />
      </Suspense>
    </>
  );
}
