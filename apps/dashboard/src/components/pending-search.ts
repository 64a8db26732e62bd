/**
 * The query string a filter last navigated to, and the one the page showed then. Next shows a navigation only
 * once the page's server render arrives; a second change meanwhile must build on the first, or it undoes it
 * (clearing one filter and typing in another brought the first back).
 */
let pending: { pathname: string; from: string; to: string } | undefined;

/**
 * The query string a change should build on: the one last navigated to while the page still shows what it
 * showed then, else the one shown (the navigation arrived, or Back or a link moved elsewhere).
 */
export function baseSearch(pathname: string, shown: URLSearchParams): URLSearchParams {
  const current = shown.toString();
  if (pending?.pathname === pathname && pending.from === current) return new URLSearchParams(pending.to);
  pending = undefined;
  return new URLSearchParams(current);
}

/** Notes a navigation a change is about to make, from the query string `shown`. */
export function navigating(pathname: string, shown: URLSearchParams, to: string): void {
  pending = { pathname, from: shown.toString(), to };
}
