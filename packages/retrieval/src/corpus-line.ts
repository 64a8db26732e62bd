/** A passage as Search-R1's corpus files hold it: `contents` is the title, a newline, then the text. */
export interface CorpusDocument {
  id: string;
  contents: string;
}

/** Postgres text cannot hold NUL; it becomes U+FFFD rather than costing the passage. */
const NUL = '\u0000';

/**
 * Reads one line of a corpus file, `{"id": "12", "contents": "\"Title\"\ntext"}`; other keys are ignored. Ids may
 * be strings or integers (both occur in the wild) and are kept as strings. Returns the problem as text when the
 * line is not such an object.
 */
export function parseCorpusLine(text: string): CorpusDocument | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `not JSON (${(error as Error).message})` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { problem: 'expected a JSON object with "id" and "contents"' };
  const { id, contents } = value as Record<string, unknown>;
  if (id === undefined) return { problem: 'missing "id"' };
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id))))
    return { problem: `"id" must be a string or an integer, not ${JSON.stringify(id)}` };
  if (contents === undefined) return { problem: 'missing "contents"' };
  if (typeof contents !== 'string') return { problem: `"contents" must be a string, not ${typeof contents}` };
  return { id: String(id).replaceAll(NUL, '\ufffd'), contents: contents.replaceAll(NUL, '\ufffd') };
}
