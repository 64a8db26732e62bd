/** A run of digits long enough that the number may not survive a float64: only then is the slow path needed. */
const LONG_DIGITS = /\d{16}/;
const NUMBER = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;

/**
 * JSON.parse, except that integers a float64 cannot hold exactly come back as their decimal strings. Python
 * clients send int64 ids as JSON numbers (verl sends `sid.item()` and `instance_id.item()`), and plain
 * JSON.parse would round 5671949450826943757 to 5671949450826944000.
 *
 * @example
 * parseJsonExact('{"sid": 5671949450826943757}'); // { sid: '5671949450826943757' }
 */
export function parseJsonExact(text: string): unknown {
  if (!LONG_DIGITS.test(text)) return JSON.parse(text);
  let rewritten = '';
  let copied = 0;
  let index = 0;
  while (index < text.length) {
    const char = text.charCodeAt(index);
    if (char === 0x22) {
      index = stringEnd(text, index);
      // An unterminated string: leave the rest to JSON.parse, which reports it.
      if (index < 0) break;
    } else if (char === 0x2d || (char >= 0x30 && char <= 0x39)) {
      NUMBER.lastIndex = index;
      const match = NUMBER.exec(text);
      if (!match) break;
      const token = match[0];
      if (isLongInteger(match)) {
        rewritten += `${text.slice(copied, index)}"${token}"`;
        copied = index + token.length;
      }
      index += token.length;
    } else {
      index += 1;
    }
  }
  return JSON.parse(copied === 0 ? text : rewritten + text.slice(copied));
}

/**
 * The index just past the string literal that opens at `start`, or -1 if it is never closed. A loop, not a
 * regular expression: a backtracking match of a string of megabytes overflows the stack.
 */
function stringEnd(text: string, start: number): number {
  for (let index = start + 1; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (char === 0x5c)
      index += 1; // a backslash: the next character is escaped, whatever it is
    else if (char === 0x22) return index + 1;
  }
  return -1;
}

/**
 * Whether a number token is an integer a float64 cannot hold exactly, and valid JSON: one with a leading zero is
 * left as it is, for JSON.parse to refuse.
 */
function isLongInteger(match: RegExpExecArray): boolean {
  const [token, fraction, exponent] = match;
  return (
    fraction === undefined &&
    exponent === undefined &&
    !/^-?0\d/.test(token) &&
    !Number.isSafeInteger(Number(token))
  );
}
