/**
 * Text as Postgres stores it. Neither `text` nor `jsonb` holds a NUL character, and `jsonb` refuses an unpaired
 * UTF-16 surrogate, which JSON.stringify writes as a `\udXXX` escape. Both are what a model or a sandboxed
 * program can print, so each becomes U+FFFD, as a UTF-8 decoder reads a broken sequence, rather than failing the
 * write that should record it.
 */
export function storableText(text: string): string {
  const paired = text.isWellFormed() ? text : text.toWellFormed();
  return paired.includes('\0') ? paired.replaceAll('\0', '\uFFFD') : paired;
}

/**
 * A copy of a JSON value that a `jsonb` column holds: each string in it, keys too, made storable. Two keys that
 * differ only where U+FFFD now stands become one, the later value kept.
 *
 * @example
 * data: { rewardDetail: storableJson(outcomes) }
 */
export function storableJson<T>(value: T): T {
  return storableValue(value) as T;
}

function storableValue(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.map(storableValue);
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [storableText(key), storableValue(item)]),
  );
}
