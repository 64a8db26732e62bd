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

/**
 * The complete fenced blocks of a text, in order, and the first opening fence after the last of them that is
 * never closed (a generation cut off by its stop token or its length limit), whose body runs to the end.
 *
 * A block opens at a fence line and closes at the next line that is the same fence alone; an opening fence with
 * no such line later is not a block, and the lines after it are read for blocks of their own. Each fence's
 * closing lines are listed first, so every opening finds its close in one step: a regex's lazy body instead
 * scans to the end from every unclosed fence, quadratic in a text the model filled with them.
 */
function fencedBlocks(text: string): { blocks: Block[]; unclosed: Block | undefined } {
  const lines = text.split('\n');
  const starts: number[] = [];
  const closings = new Map<string, number[]>();
  let offset = 0;
  lines.forEach((line, index) => {
    starts.push(offset);
    offset += line.length + 1;
    const fence = FENCE_ALONE.exec(line)?.[1];
    if (fence === undefined) return;
    const list = closings.get(fence);
    if (list) list.push(index);
    else closings.set(fence, [index]);
  });
  // Per fence, how many of its closing lines are behind the scan: openings are met in order, so each only moves on.
  const passed = new Map<string, number>();
  const closingAfter = (fence: string, line: number): number | undefined => {
    const list = closings.get(fence) ?? [];
    let at = passed.get(fence) ?? 0;
    while (at < list.length && list[at]! <= line) at += 1;
    passed.set(fence, at);
    return list[at];
  };

  const blocks: Block[] = [];
  let unclosed: Block | undefined;
  // The last line has no newline after it, so it cannot open a block.
  for (let line = 0; line < lines.length - 1; line += 1) {
    const opening = OPENING_FENCE.exec(lines[line]!);
    if (!opening) continue;
    const [, fence = '', tag = ''] = opening;
    const closing = closingAfter(fence, line);
    if (closing === undefined) {
      unclosed ??= { tag, body: text.slice(starts[line + 1]) };
      continue;
    }
    blocks.push({ tag, body: text.slice(starts[line + 1], starts[closing]) });
    unclosed = undefined;
    line = closing;
  }
  return { blocks, unclosed };
}
