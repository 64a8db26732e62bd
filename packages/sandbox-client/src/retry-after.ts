/**
 * Milliseconds to wait according to a `Retry-After` header (delay-seconds or an HTTP date), or undefined when
 * the header is absent or unreadable.
 */
export function parseRetryAfter(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
