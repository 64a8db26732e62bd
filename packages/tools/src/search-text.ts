import { pythonJsonDumps } from './python-json';
import { pythonStrip } from './qa-score';

/** A passage as Search-R1's retrieval server returns it: `contents` is the title, a newline, then the text. */
export interface SearchPassage {
  id: string;
  contents: string;
}

/**
 * One query's passages as verl's SearchTool shows them (`_passages2string`): `Doc i (Title: …)` then the
 * text, blank lines between, the whole stripped.
 *
 * @example
 * passagesText([{ id: '1', contents: '"Paris"\nThe capital of France.' }]);
 * // 'Doc 1 (Title: "Paris")\nThe capital of France.'
 */
export function passagesText(passages: readonly SearchPassage[]): string {
  const blocks = passages.map(({ contents }, index) => {
    const [title = '', ...text] = contents.split('\n');
    return `Doc ${index + 1} (Title: ${title})\n${text.join('\n')}\n\n`;
  });
  return pythonStrip(blocks.join(''));
}

/**
 * The tool message verl's SearchTool answers with, byte for byte: Python's `json.dumps({"result": …},
 * ensure_ascii=False)` of every query's passages joined by `\n---\n`, or of a message saying what went wrong.
 *
 * @example
 * searchResultText('Search error: HTTP 404'); // '{"result": "Search error: HTTP 404"}'
 */
export function searchResultText(result: string): string {
  return pythonJsonDumps({ result });
}
