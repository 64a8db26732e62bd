/** How often a list's first page is asked again while it is the only page loaded. */
export const LIVE_REFRESH_MS = 2_000;

/**
 * A newest-first list's refetch interval: live while only its first page is loaded, so new executions and
 * sessions appear at the top while training runs; still once the reader has scrolled further, so rows do not
 * move under them and every loaded page is not fetched again every two seconds.
 */
export function liveWhileOnFirstPage(query: { state: { data?: { pages: unknown[] } } }): number | false {
  return (query.state.data?.pages.length ?? 0) <= 1 ? LIVE_REFRESH_MS : false;
}
