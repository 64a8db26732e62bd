/**
 * Whether a newest-first list follows changes live: while only its first page is loaded, so new executions and
 * sessions appear at the top while training runs; not once the reader has scrolled further, so rows do not
 * move under them and every loaded page is not fetched again on each change.
 */
export function liveOnFirstPage(data: { pages: unknown[] } | undefined): boolean {
  return (data?.pages.length ?? 0) <= 1;
}
