import type { Metadata } from 'next';
import { HydrationBoundary } from '@tanstack/react-query';
import { Suspense } from 'react';
import { type PageSearchParams, pageSearch } from '~/components/page-search';
import { Loading } from '~/components/query-state';
import { apiAddress } from '~/env';
import { ExecutionList } from '~/executions/execution-list';
import { prefetchExecutions } from '~/executions/prefetch-executions';
import { serverTrpc } from '~/trpc/server';

export const metadata: Metadata = { title: 'Executions' };

export default async function ExecutionsPage({ searchParams }: { searchParams: PageSearchParams }) {
  // Reading searchParams renders the page per request, so the API address is the running server's, not the
  // build's. The first rows come with the page.
  const state = await prefetchExecutions(serverTrpc(), await pageSearch(searchParams));
  return (
    <>
      <h1>Executions</h1>
      <HydrationBoundary state={state}>
        <Suspense fallback={<Loading what="executions" />}>
          <ExecutionList api={apiAddress} />
        </Suspense>
      </HydrationBoundary>
    </>
  );
}
