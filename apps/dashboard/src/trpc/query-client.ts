import { QueryClient } from '@tanstack/react-query';

/** The query cache's settings, the same in the browser and for a server component's prefetch. */
export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: 2_000, retry: 1, refetchOnWindowFocus: false },
    },
  });
}
