import type { Metadata } from 'next';
import { HydrationBoundary } from '@tanstack/react-query';
import { Suspense } from 'react';
import { type PageSearchParams, pageSearch } from '~/components/page-search';
import { Loading } from '~/components/query-state';
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
  return (
    <HydrationBoundary state={state}>
      <Suspense fallback={<Loading what="the browser" />}>
        <RolloutBrowser runId={runId} />
      </Suspense>
    </HydrationBoundary>
  );
}
