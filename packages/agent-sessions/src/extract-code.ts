import type { Language } from '@fusebox/sandbox-client/protocol';
import { languageOfTag } from '@fusebox/tasks';

/** A line that opens a fenced block: its fence and the tag after it (`python` in "```python title"). */
const OPENING_FENCE = /^[ \t]*(`{3,}|~{3,})[ \t]*([^\s`]*)/;
/** A line that is a fence alone: it closes a block opened by the same fence. */
const FENCE_ALONE = /^[ \t]*(`{3,}|~{3,})[ \t]*$/;

interface Block {
  tag: string;
  body: string;
}

/**
 * The code an action runs: the last fenced block tagged with the task's language (```py counts for python, and
 * ```python for pytest), else the last untagged block, else an unclosed block in that language at the end, else
 * the whole content.
 *
 * @example
 * extractCode('Try this:\n```python\nprint(1)\n```', 'python'); // 'print(1)\n'
 */
export function extractCode(content: string, language: Language): string {
  const { blocks, unclosed } = fencedBlocks(content.replace(/\r\n/g, '\n'));
  let tagged: string | undefined;
  let untagged: string | undefined;
  for (const { tag, body } of blocks) {
    if (tag === '') untagged = body;
    else if (tagsLanguage(tag, language)) tagged = body;
  }
  if (tagged !== undefined) return tagged;
  if (untagged !== undefined) return untagged;
  if (unclosed && (unclosed.tag === '' || tagsLanguage(unclosed.tag, language))) return unclosed.body;
  return content;
}

/** Whether a fence tag names `language`; a pytest task's code is Python, and models fence it as such. */
function tagsLanguage(tag: string, language: Language): boolean {
  const tagged = languageOfTag(tag);
  return tagged === language || (language === 'pytest' && tagged === 'python');
}

/** What `^` and `$` stand beside under a regex's `m` flag, as the fence rules were first written. */
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/g;

/**
 * The complete fenced blocks of a text, in order, and the first opening fence after the last of them that is
 * never closed (a generation cut off by its stop token or its length limit), whose body runs to the end.
 *
 * A fence line starts after any line terminator; an opening fence's body starts after the next newline, and
 * its block closes at the next line that is the same fence alone. An opening fence with no such line later is
 * not a block, and the lines after it are read for blocks of their own. Each fence's closing lines are listed
 * first, so every opening finds its close in one step: a regex's lazy body instead scans to the end from every
 * unclosed fence, quadratic in a text the model filled with them.
 */
function fencedBlocks(text: string): { blocks: Block[]; unclosed: Block | undefined } {
  const starts = [0, ...[...text.matchAll(LINE_TERMINATOR)].map((match) => match.index + 1)];
  const line = (index: number) => text.slice(starts[index], (starts[index + 1] ?? text.length + 1) - 1);
  const closings = new Map<string, number[]>();
  starts.forEach((_, index) => {
    const fence = FENCE_ALONE.exec(line(index))?.[1];
    if (fence === undefined) return;
    const list = closings.get(fence);
    if (list) list.push(index);
    else closings.set(fence, [index]);
  });
  // Openings are met in order and their bodies start in order, so each of these only moves forward.
  const passed = new Map<string, number>();
  const closingFrom = (fence: string, offset: number): number | undefined => {
    const list = closings.get(fence) ?? [];
    let at = passed.get(fence) ?? 0;
    while (at < list.length && starts[list[at]!]! < offset) at += 1;
    passed.set(fence, at);
    return list[at];
  };
  let newline = -2;
  const newlineFrom = (offset: number): number => {
    if (newline !== -1 && newline < offset) newline = text.indexOf('\n', offset);
    return newline;
  };

  const blocks: Block[] = [];
  let unclosed: Block | undefined;
  for (let index = 0; index < starts.length; index += 1) {
    const opening = OPENING_FENCE.exec(line(index));
    if (!opening) continue;
    const [, fence = '', tag = ''] = opening;
    // The body starts after the newline that ends the opening line; without one there is no block.
    const openingEnd = newlineFrom(starts[index]!);
    if (openingEnd === -1) break;
    const body = openingEnd + 1;
    const closing = closingFrom(fence, body);
    if (closing === undefined) {
      unclosed ??= { tag, body: text.slice(body) };
      continue;
    }
    blocks.push({ tag, body: text.slice(body, starts[closing]) });
    unclosed = undefined;
    index = closing;
  }
  return { blocks, unclosed };
}
