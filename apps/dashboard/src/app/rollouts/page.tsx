import { RunList } from '~/rollouts/run-list';

export default function RolloutsPage() {
  return (
    <>
      <h1>Rollouts</h1>
      <RunList />
    </>
  );
}
