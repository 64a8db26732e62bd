import { SessionTimeline } from '~/sessions/session-timeline';

export default async function SessionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <SessionTimeline id={id} />;
}
