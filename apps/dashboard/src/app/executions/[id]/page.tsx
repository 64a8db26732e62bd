import type { Metadata } from 'next';
import { ExecutionDetail } from '~/executions/execution-detail';

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  return { title: `Execution ${(await params).id.slice(0, 13)}…` };
}

export default async function ExecutionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <ExecutionDetail id={id} />;
}
