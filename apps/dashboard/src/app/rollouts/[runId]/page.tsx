import type { Metadata } from 'next';
import { runPageMetadata } from '~/rollouts/run-page-metadata';
import { RunSteps } from '~/rollouts/run-steps';

export async function generateMetadata({
  params,
}: {
  params: Promise<{ runId: string }>;
}): Promise<Metadata> {
  return runPageMetadata((await params).runId, 'Rollout run');
}

export default async function RunPage({ params }: { params: Promise<{ runId: string }> }) {
  const { runId } = await params;
  return <RunSteps runId={runId} />;
}
