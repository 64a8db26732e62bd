import type { Metadata } from 'next';
import { RunList } from '~/rollouts/run-list';

export const metadata: Metadata = { title: 'Rollouts' };

export default function RolloutsPage() {
  return (
    <>
      <h1>Rollouts</h1>
      <RunList />
    </>
  );
}
