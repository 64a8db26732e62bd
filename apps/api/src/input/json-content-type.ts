/**
 * Whether a Content-Type header announces JSON (`application/json`, with or without parameters). JSON routes
 * accept nothing else: the content types a web page may send cross-site without asking first (`text/plain`,
 * `application/x-www-form-urlencoded`, `multipart/form-data`, or none) are refused, so no page a user visits can
 * post code to a Fusebox on their machine.
 *
 * @example
 * isJsonContentType('application/json; charset=utf-8'); // true
 * isJsonContentType('text/plain'); // false
 */
export function isJsonContentType(header: string | undefined): boolean {
  const type = header?.split(';', 1)[0]?.trim().toLowerCase();
  return type === 'application/json';
}

/** The 415 answer's reason: what was expected and what came. */
export function describeUnsupportedMediaType(header: string | undefined): string {
  const received = header === undefined || header === '' ? 'none' : JSON.stringify(header);
  return `expected a JSON body with content-type application/json, got content-type ${received}`;
}
