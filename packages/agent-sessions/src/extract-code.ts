import type { Language } from '@fusebox/sandbox-client/protocol';
import { languageOfTag } from '@fusebox/tasks';

/** A complete fenced block: the opening fence's tag and the body up to a closing fence of the same kind. */
const FENCED_BLOCK = /^[ \t]*(`{3,}|~{3,})[ \t]*([^\s`]*)[^\n]*\n([\s\S]*?)^[ \t]*\1[ \t]*$/gm;
/** An opening fence that is never closed: a generation cut off by its stop token or its length limit. */
const OPEN_BLOCK = /^[ \t]*(`{3,}|~{3,})[ \t]*([^\s`]*)[^\n]*\n([\s\S]*)$/m;

/**
 * The code an action runs: the last fenced block tagged with the task's language (```py counts for python, and
 * ```python for pytest), else the last untagged block, else an unclosed block in that language at the end, else
 * the whole content.
 *
 * @example
 * extractCode('Try this:\n```python\nprint(1)\n```', 'python'); // 'print(1)\n'
 */
export function extractCode(content: string, language: Language): string {
  const text = content.replace(/\r\n/g, '\n');
  let tagged: string | undefined;
  let untagged: string | undefined;
  for (const [, , tag = '', body = ''] of text.matchAll(FENCED_BLOCK)) {
    if (tag === '') untagged = body;
    else if (tagsLanguage(tag, language)) tagged = body;
  }
  if (tagged !== undefined) return tagged;
  if (untagged !== undefined) return untagged;
  const open = OPEN_BLOCK.exec(text.slice(lastClosedFenceEnd(text)));
  if (open && (open[2] === '' || tagsLanguage(open[2] ?? '', language))) return open[3] ?? '';
  return content;
}

/** Whether a fence tag names `language`; a pytest task's code is Python, and models fence it as such. */
function tagsLanguage(tag: string, language: Language): boolean {
  const tagged = languageOfTag(tag);
  return tagged === language || (language === 'pytest' && tagged === 'python');
}

/** Where the text after the last complete fenced block starts (0 when there is none). */
function lastClosedFenceEnd(text: string): number {
  let end = 0;
  for (const match of text.matchAll(FENCED_BLOCK)) end = match.index + match[0].length;
  return end;
}
