import { HealthCard } from '~/components/health-card';

export default function OverviewPage() {
  return (
    <>
      <h1>Overview</h1>
      <HealthCard />
    </>
  );
}
