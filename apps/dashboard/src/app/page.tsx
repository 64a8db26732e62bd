import type { Metadata } from 'next';
import { connection } from 'next/server';
import { HealthCard } from '~/components/health-card';
import { LanguagesCard } from '~/components/languages-card';
import { apiAddress } from '~/env';
import { LoadOverview } from '~/overview/load-overview';

// The layout's title template applies to the pages below it, not to this one beside it.
export const metadata: Metadata = { title: { absolute: 'Overview · Fusebox' } };

export default async function OverviewPage() {
  // Rendered per request, so the API address is the running server's, not the build's.
  await connection();
  return (
    <>
      <h1>Overview</h1>
      <LoadOverview api={apiAddress} />
      <HealthCard />
      <LanguagesCard />
    </>
  );
}
