/** One `open…close` span of a text: where it starts and ends, and the text between its tags. */
export interface TaggedSpan {
  start: number;
  end: number;
  inner: string;
}

/**
 * The spans of `text` that open with `open` and close at the first `close` after it, in order, each searched for
 * after the last one's end: what `/open([\s\S]*?)close/g` matches. That regex scans to the end of the text from
 * every `open` never closed, which is quadratic in a text the model filled with opening tags (`<answer>`,
 * `<tool_response>` is one token in Qwen's vocabulary); this reads it once.
 *
 * @example
 * taggedSpans('<a>x</a> <a>y', '<a>', '</a>'); // [{ start: 0, end: 8, inner: 'x' }]
 */
export function taggedSpans(text: string, open: string, close: string): TaggedSpan[] {
  const spans: TaggedSpan[] = [];
  for (let start = text.indexOf(open); start !== -1;) {
    const closing = text.indexOf(close, start + open.length);
    // Every later `open` is before this missing `close` too.
    if (closing === -1) break;
    const end = closing + close.length;
    spans.push({ start, end, inner: text.slice(start + open.length, closing) });
    start = text.indexOf(open, end);
  }
  return spans;
}
