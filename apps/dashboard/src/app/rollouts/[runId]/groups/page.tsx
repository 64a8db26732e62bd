import type { Metadata } from 'next';
import { Suspense } from 'react';
import { Loading } from '~/components/query-state';
import { GroupList } from '~/rollouts/group-list';

export const metadata: Metadata = { title: 'GRPO groups' };

export default async function GroupsPage({ params }: { params: Promise<{ runId: string }> }) {
  const { runId } = await params;
  return (
    <>
      <h1>GRPO groups</h1>
      <Suspense fallback={<Loading what="the groups" />}>
        <GroupList runId={runId} />
      </Suspense>
    </>
  );
}
