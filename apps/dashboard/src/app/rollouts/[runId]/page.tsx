import type { Metadata } from 'next';
import { RunSteps } from '~/rollouts/run-steps';

export const metadata: Metadata = { title: 'Rollout run' };

export default async function RunPage({ params }: { params: Promise<{ runId: string }> }) {
  const { runId } = await params;
  return <RunSteps runId={runId} />;
}
