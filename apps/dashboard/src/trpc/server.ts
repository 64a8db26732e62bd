import { cache } from 'react';
import type { AppRouter } from '@fusebox/api-router';
import { createTRPCClient, httpBatchLink } from '@trpc/client';
import { createTRPCOptionsProxy } from '@trpc/tanstack-react-query';
import { env } from '~/env';
import { makeQueryClient } from './query-client';

/** How long a page waits for its prefetch; past it, the page is sent and the browser asks again itself. */
const PREFETCH_TIMEOUT_MS = 3_000;

/**
 * For a server component: a query cache of the request's own, and tRPC query options that call the API directly
 * (with the token, as the /trpc forwarder does). What it prefetches goes to the browser with the page
 * (`dehydrate`), so the first render has its data instead of asking for it after hydration. One per request
 * (React's `cache`): a page's title and its body ask for the run once between them.
 */
export const serverTrpc = cache(function serverTrpc() {
  // A failed prefetch is left to the browser, which retries and shows the problem: waiting to retry here would
  // only hold the page back.
  const queryClient = makeQueryClient({ retry: false });
  const client = createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: new URL('/trpc', env.FUSEBOX_API_URL).href,
        headers: env.FUSEBOX_API_TOKEN ? { authorization: `Bearer ${env.FUSEBOX_API_TOKEN}` } : {},
        fetch: (url, init) => fetch(url, { ...init, signal: AbortSignal.timeout(PREFETCH_TIMEOUT_MS) }),
      }),
    ],
  });
  return { queryClient, trpc: createTRPCOptionsProxy<AppRouter>({ client, queryClient }) };
});
