import { dehydrate } from '@tanstack/react-query';
import type { serverTrpc } from '~/trpc/server';
import { executionListInput, executionListParams } from './execution-list-params';

/**
 * Loads on the server what the execution list shows first: its first page and the language choices, so rows
 * are on screen without waiting for hydration and a request. A time range is left to the browser: the URL holds
 * it in the browser's local time, which the server does not know. Failures are not kept: the list asks again
 * and shows the problem in place.
 */
export async function prefetchExecutions(
  { queryClient, trpc }: ReturnType<typeof serverTrpc>,
  search: URLSearchParams,
): Promise<ReturnType<typeof dehydrate>> {
  const params = executionListParams(search);
  const loads = [queryClient.prefetchQuery(trpc.executions.languages.queryOptions())];
  if (params.from === undefined && params.to === undefined) {
    loads.push(
      queryClient.prefetchInfiniteQuery(
        trpc.executions.list.infiniteQueryOptions(executionListInput(params), {
          getNextPageParam: (page) => page.nextCursor,
        }),
      ),
    );
  }
  await Promise.all(loads);
  return dehydrate(queryClient);
}
