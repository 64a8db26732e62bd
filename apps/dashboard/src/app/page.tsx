import { HealthCard } from '~/components/health-card';
import { LoadOverview } from '~/overview/load-overview';

export default function OverviewPage() {
  return (
    <>
      <h1>Overview</h1>
      <LoadOverview />
      <HealthCard />
    </>
  );
}
