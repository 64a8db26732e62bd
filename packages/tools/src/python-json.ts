/**
 * A JSON value as Python's `json.dumps` sees it.
 *
 * @example
 * const extra: Record<string, JsonValue> = { data_source: 'openai/gsm8k', acc: true };
 */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * Serialises like Python's `json.dumps(value, ensure_ascii=False)`, which is what Hugging Face chat templates'
 * `tojson` filter calls: `", "` between items and `": "` after keys. Prompts must match verl byte for byte, and
 * `JSON.stringify` writes `","` and `":"`. Strings escape the same way in both, so only the separators differ.
 *
 * @example
 * pythonJsonDumps({ a: [1, null] }); // '{"a": [1, null]}'
 */
export function pythonJsonDumps(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(', ')}]`;
  const entries = Object.entries(value).map(
    ([key, item]) => `${JSON.stringify(key)}: ${pythonJsonDumps(item)}`,
  );
  return `{${entries.join(', ')}}`;
}
