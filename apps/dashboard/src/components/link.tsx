import NextLink from 'next/link';
import type { ComponentProps } from 'react';

/**
 * The dashboard's link: next/link without prefetching. Every page is live data, so a prefetched render is stale
 * by the click, and each prefetch is a server render with its own API queries (a list would fire one per row
 * in view), competing with the current page's requests.
 */
export function Link(props: ComponentProps<typeof NextLink>) {
  return <NextLink prefetch={false} {...props} />;
}
