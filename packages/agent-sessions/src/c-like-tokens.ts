export interface Token {
  text: string;
  /** Where the token starts and ends in the source. */
  start: number;
  end: number;
}

/** One token of C++, Java or Rust source, or whitespace, a comment or a preprocessor line (sticky, global). */
const C_LIKE_TOKEN =
  /\s+|\/\/[^\n]*|\/\*[\s\S]*?\*\/|#\s*define\b|#[^\n]*|(?:u8|u|U|L)?R"([^()\\\s]{0,16})\([\s\S]*?\)\1"|(?:u8|u|U|L)?"(?:[^"\\\n]|\\.)*"|(?:u8|u|U|L)?'(?:[^'\\\n]|\\.)*'|[A-Za-z_]\w*|\.?\d(?:[\w.']|[eEpP][+-])*|<=>|::|->|\+\+|--|&&|\|\||[=!<>+\-*/%&|^]=|<<|>>|[^\s]/gy;

/**
 * Tokens of C++ or Java source without comments; string and char literals (C++'s raw ones too) are one token
 * each, a preprocessor line none (but `#define`, which is one token: it could rename a check).
 */
export function tokenize(code: string): Token[] | undefined {
  const tokens: Token[] = [];
  const pattern = new RegExp(C_LIKE_TOKEN);
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

/**
 * `code` with every comment blanked (its characters spaces, its newlines kept, so that offsets hold): a comment
 * may hold the test's answers (`// expects 42`, a commented-out assert), and the model's program, which can read
 * its own source, must not. Undefined where `tokenize` is.
 */
export function withoutComments(code: string): string | undefined {
  const parts: string[] = [];
  const pattern = new RegExp(C_LIKE_TOKEN);
  while (pattern.lastIndex < code.length) {
    const match = pattern.exec(code);
    if (match === null) return undefined;
    const text = match[0];
    parts.push(text.startsWith('//') || text.startsWith('/*') ? text.replaceAll(/[^\n]/g, ' ') : text);
  }
  return parts.join('');
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

/** Whether the tokens are one bracketed group: `( … )` whose first parenthesis closes at the end. */
export function enclosed(tokens: readonly Token[]): boolean {
  if (tokens[0]?.text !== '(' || tokens.at(-1)?.text !== ')') return false;
  let depth = 0;
  for (const [index, { text }] of tokens.entries()) {
    if ('([{'.includes(text)) depth++;
    else if (')]}'.includes(text) && --depth === 0) return index === tokens.length - 1;
  }
  return false;
}

/**
 * Whether an assert's actual side is exactly one call of the code under test on literal arguments
 * (`candidate((std::vector<long>({1})), (2))`, `Problem.f("a")`): a name, names joined by `separator`, then
 * one argument list in which `isLiteral` accepts every argument. Anything else (`std::abs(f(x) - 2.5) < 1e-6`,
 * `f(x).contains("a")`) would carry the test's own comparison, and its expected literals, into the model's
 * process, where its result is the model's to print.
 */
export function callOnLiterals(
  tokens: readonly Token[],
  separator: string,
  isLiteral: (tokens: readonly Token[]) => boolean,
): boolean {
  let call = tokens;
  while (enclosed(call)) call = call.slice(1, -1);
  const name = /^[A-Za-z_$][\w$]*$/;
  if (!name.test(call[0]?.text ?? '')) return false;
  let open = 1;
  while (call[open]?.text === separator && name.test(call[open + 1]?.text ?? '')) open += 2;
  const rest = call.slice(open);
  if (!enclosed(rest)) return false;
  const args = rest.slice(1, -1);
  return args.length === 0 || isLiteral(args);
}

/**
 * Whether the source has a `#` outside its tokens and comments: a line `tokenize` skipped as a preprocessor
 * line, which in a language without a preprocessor is code it did not read (a Rust attribute or raw string).
 */
export function skipsHashLine(code: string, tokens: readonly Token[]): boolean {
  let from = 0;
  for (const token of [...tokens, { start: code.length, end: code.length }]) {
    if (
      code
        .slice(from, token.start)
        .replaceAll(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g, '')
        .includes('#')
    )
      return true;
    from = token.end;
  }
  return false;
}

/** The index of the bracket that closes the one at `open`, or the tokens' length when none does. */
export function closingBracket(tokens: readonly Token[], open: number): number {
  let depth = 0;
  for (let at = open; at < tokens.length; at++) {
    const { text } = tokens[at] as Token;
    if ('([{'.includes(text)) depth++;
    else if (')]}'.includes(text) && --depth === 0) return at;
  }
  return tokens.length;
}

/**
 * A test of whether tokens make an expected expression: at least one token, every name among `names` (a name is
 * what `name` matches) and no token among `refused` (assignments, member access, whatever could reach the
 * program's own code).
 */
export function literalTokens(
  names: ReadonlySet<string>,
  refused: readonly string[],
  name = /^[A-Za-z_]/,
): (tokens: readonly Token[]) => boolean {
  return (tokens) =>
    tokens.length > 0 &&
    tokens.every(({ text }) => (name.test(text) ? names.has(text) : !refused.includes(text)));
}
