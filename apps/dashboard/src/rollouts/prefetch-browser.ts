import { dehydrate } from '@tanstack/react-query';
import type { serverTrpc } from '~/trpc/server';
import { type BrowserParams, sampleFilter, sampleListInput } from './browser-params';

/**
 * Loads on the server what the rollout browser shows first: the run's steps, and the step's fields, first page
 * of samples and chosen sample (a search's hits are left to the browser). Failures are not kept: the browser
 * asks again and shows the problem in place.
 */
export async function prefetchBrowser(
  { queryClient, trpc }: ReturnType<typeof serverTrpc>,
  runId: string,
  params: BrowserParams,
): Promise<ReturnType<typeof dehydrate>> {
  const stepList = trpc.rollouts.stepList.queryOptions({ runId });
  let step = params.step;
  const loads: Promise<void>[] = [];
  if (step === null) {
    // A link to the run alone opens its first step.
    await queryClient.prefetchQuery(stepList);
    step = queryClient.getQueryData(stepList.queryKey)?.steps[0]?.step ?? null;
  } else {
    loads.push(queryClient.prefetchQuery(stepList));
  }
  if (step !== null) {
    loads.push(queryClient.prefetchQuery(trpc.rollouts.fields.queryOptions({ runId, step })));
    if (!params.q) {
      loads.push(
        queryClient.prefetchInfiniteQuery(
          trpc.rollouts.samples.infiniteQueryOptions(sampleListInput(runId, step, params), {
            getNextPageParam: (page) => page.nextCursor,
          }),
        ),
      );
    }
    if (params.line !== null) {
      const input = { runId, step, line: params.line, filter: sampleFilter(params) };
      loads.push(queryClient.prefetchQuery(trpc.rollouts.sample.queryOptions(input)));
    }
  }
  await Promise.all(loads);
  return dehydrate(queryClient);
}
