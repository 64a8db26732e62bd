import type { Metadata } from 'next';
import { HydrationBoundary } from '@tanstack/react-query';
import { type PageSearchParams, pageSearch } from '~/components/page-search';
import { parseBrowserParams } from '~/rollouts/browser-params';
import { prefetchBrowser } from '~/rollouts/prefetch-browser';
import { RolloutBrowser } from '~/rollouts/rollout-browser';
import { runPageMetadata } from '~/rollouts/run-page-metadata';
import { serverTrpc } from '~/trpc/server';

export async function generateMetadata({
  params,
}: {
  params: Promise<{ runId: string }>;
}): Promise<Metadata> {
  return runPageMetadata((await params).runId, 'Rollout samples');
}

export default async function BrowsePage({
  params,
  searchParams,
}: {
  params: Promise<{ runId: string }>;
  searchParams: PageSearchParams;
}) {
  const { runId } = await params;
  // The first samples come with the page: the list is on screen without waiting for hydration and a request.
  const state = await prefetchBrowser(
    serverTrpc(),
    runId,
    parseBrowserParams(await pageSearch(searchParams)),
  );
  // No Suspense boundary around the browser: React streams a boundary bigger than its chunk size (12.8 kB) apart,
  // behind its fallback, so the rows would show only once a script moved them in, and never without JavaScript.
  // The page renders per request, so useSearchParams needs no boundary either.
  return (
    <HydrationBoundary state={state}>
      <RolloutBrowser runId={runId} />
    </HydrationBoundary>
  );
}
