export interface Token {
  text: string;
  /** Where the token starts and ends in the source. */
  start: number;
  end: number;
}

/**
 * Tokens of C++ or Java source without comments; string and char literals (C++'s raw ones too) are one token
 * each, a preprocessor line none (but `#define`, which is one token: it could rename a check).
 */
export function tokenize(code: string): Token[] | undefined {
  const tokens: Token[] = [];
  const pattern =
    /\s+|\/\/[^\n]*|\/\*[\s\S]*?\*\/|#\s*define\b|#[^\n]*|(?:u8|u|U|L)?R"([^()\\\s]{0,16})\([\s\S]*?\)\1"|(?:u8|u|U|L)?"(?:[^"\\\n]|\\.)*"|(?:u8|u|U|L)?'(?:[^'\\\n]|\\.)*'|[A-Za-z_]\w*|\.?\d(?:[\w.']|[eEpP][+-])*|<=>|::|->|\+\+|--|&&|\|\||[=!<>+\-*/%&|^]=|<<|>>|[^\s]/gy;
  while (pattern.lastIndex < code.length) {
    const start = pattern.lastIndex;
    const match = pattern.exec(code);
    if (match === null) return undefined; // an unterminated literal or comment
    const text = match[0];
    if (/^\s/.test(text) || text.startsWith('//') || text.startsWith('/*')) continue;
    // An include line is no check; a #define could rename one (and is refused by its token).
    if (text.startsWith('#') && !/^#\s*define/.test(text)) continue;
    tokens.push({ text: text.startsWith('#') ? '#define' : text, start, end: start + text.length });
  }
  return tokens;
}

/** Indexes of the tokens among `operators` outside brackets. */
export function topLevel(tokens: readonly Token[], operators: readonly string[]): number[] {
  const found: number[] = [];
  let depth = 0;
  for (const [index, { text }] of tokens.entries()) {
    if ('([{'.includes(text)) depth++;
    else if (')]}'.includes(text)) depth--;
    else if (depth === 0 && operators.includes(text)) found.push(index);
  }
  return found;
}
