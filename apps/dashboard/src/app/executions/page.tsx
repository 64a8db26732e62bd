import type { Metadata } from 'next';
import { HydrationBoundary } from '@tanstack/react-query';
import { type PageSearchParams, pageSearch } from '~/components/page-search';
import { apiAddress } from '~/env';
import { ExecutionList } from '~/executions/execution-list';
import { prefetchExecutions } from '~/executions/prefetch-executions';
import { serverTrpc } from '~/trpc/server';

export const metadata: Metadata = { title: 'Executions' };

export default async function ExecutionsPage({ searchParams }: { searchParams: PageSearchParams }) {
  // Reading searchParams renders the page per request, so the API address is the running server's, not the
  // build's. The first rows come with the page.
  const state = await prefetchExecutions(serverTrpc(), await pageSearch(searchParams));
  // No Suspense boundary around the list: React streams a boundary bigger than its chunk size (12.8 kB) apart,
  // behind its fallback, so the rows would show only once a script moved them in, and never without JavaScript.
  // The page renders per request, so useSearchParams needs no boundary either.
  return (
    <>
      <h1>Executions</h1>
      <HydrationBoundary state={state}>
        <ExecutionList api={apiAddress} />
      </HydrationBoundary>
    </>
  );
}
