import { RunSteps } from '~/rollouts/run-steps';

export default async function RunPage({ params }: { params: Promise<{ runId: string }> }) {
  const { runId } = await params;
  return <RunSteps runId={runId} />;
}
