import type { Metadata } from 'next';
import { SessionTimeline } from '~/sessions/session-timeline';

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  return { title: `Session ${(await params).id}` };
}

export default async function SessionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <SessionTimeline id={id} />;
}
