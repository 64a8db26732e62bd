// Python's printable test excludes these categories; the space is the one separator it prints as is.
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;
const NAMED_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Python's `repr(str)`, as verl's f-strings (`f"{answer=}"`) print it: single quotes unless the text holds a
 * single quote and no double quote, backslash escapes for the rest. Tool texts the model reads must match.
 *
 * @example
 * pythonStringRepr("it's"); // `"it's"`
 */
export function pythonStringRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (NAMED_ESCAPES[char] !== undefined) out += NAMED_ESCAPES[char];
    else if (char === quote) out += `\\${quote}`;
    else if (char !== ' ' && NON_PRINTABLE.test(char)) out += hexEscape(code);
    else out += char;
  }
  return out + quote;
}

/**
 * Python's `repr(float)` for the values rewards take: integral values keep their `.0`.
 *
 * @example
 * pythonFloatRepr(1); // '1.0'
 */
export function pythonFloatRepr(value: number): string {
  return Number.isInteger(value) ? value.toFixed(1) : String(value);
}

function hexEscape(code: number): string {
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\U${code.toString(16).padStart(8, '0')}`;
}
