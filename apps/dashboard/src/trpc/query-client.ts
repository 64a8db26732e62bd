import { QueryClient } from '@tanstack/react-query';

/**
 * The query cache's settings, the same in the browser and for a server component's prefetch; `retry` is the
 * number of retries after a failure (default 1), or false for none.
 */
export function makeQueryClient({ retry = 1 }: { retry?: number | false } = {}): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: 2_000, retry, refetchOnWindowFocus: false },
    },
  });
}
