/**
 * `text` with LIKE's wildcards (`%`, `_`) and its escape character escaped, so that a LIKE or ILIKE pattern built
 * from it finds what was typed, as typed.
 *
 * @example
 * likeLiteral('100%_done'); // '100\\%\\_done'
 */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}
