/**
 * The query string a filter last navigated to, and the one the page showed then. Next shows a navigation only
 * once the page's server render arrives; a second change meanwhile must build on the first, or it undoes it
 * (clearing one filter and typing in another brought the first back).
 */
let pending: { pathname: string; from: string; to: string } | undefined;

/**
 * Forgets the last navigation once the page shows anything but what it showed then: the navigation arrived, or
 * Back or a link moved elsewhere. Called whenever the page's address changes, so that coming back later to the
 * query string it started from does not bring it back.
 */
export function settle(pathname: string, shown: URLSearchParams): void {
  if (pending && (pending.pathname !== pathname || pending.from !== shown.toString())) pending = undefined;
}

/** The query string a change should build on: the one last navigated to if it has not arrived, else the one shown. */
export function baseSearch(pathname: string, shown: URLSearchParams): URLSearchParams {
  settle(pathname, shown);
  return new URLSearchParams(pending?.to ?? shown.toString());
}

/** Notes a navigation a change is about to make, from the query string `shown`. */
export function navigating(pathname: string, shown: URLSearchParams, to: string): void {
  pending = { pathname, from: shown.toString(), to };
}
