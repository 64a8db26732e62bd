import { type Token, topLevel } from './c-like-tokens';
import type { Check, SplitSite, SplitTest } from './split-test';

/**
 * The line-by-line split of a scripting language's assert test (Ruby, Lua, R, bash), whose MultiPL-E tests are
 * a fixed frame of lines (a require, a test function, `candidate` bound to the solution's function, its end)
 * around one assert a line. Every line of the test must have a role the language names (a letter); blank and
 * comment lines have none, and the model's program gets them empty (a comment may hold the answers). The test
 * is split only when its letters, in order, match the language's frame: a line of no known role, or one out of
 * place, could fail (or end) the test in a way the host would not see, so the test keeps the marker path.
 */
export interface ScriptSite extends SplitSite {
  /** What the test computes from the model's code (one call of `candidate` on literals): the model's program. */
  actual: string;
  /** The literal the actual value is checked against: the expected program, or the host, only. */
  expected: string;
}

/** A line's role: its letter in the frame, and its split when it is an assert. */
export interface LineRole {
  letter: string;
  site?: { actual: string; expected: string };
  /** What the line becomes in the model's program, when not itself (Perl's lines of an assert's `else`). */
  becomes?: string;
}

export interface ScriptLines {
  sites: ScriptSite[];
  /** The test's lines, with the index of the site each assert line became. */
  lines: { text: string; site?: number }[];
}

/**
 * The test's lines and sites when every line has a role (`role`, after `comment` lines are set aside) and the
 * roles' letters match `frame`; undefined otherwise, or when a line has a NUL, or there is no assert.
 */
export function scriptLines(
  code: string,
  comment: RegExp,
  role: (line: string) => LineRole | undefined,
  frame: RegExp,
): ScriptLines | undefined {
  if (code.includes('#<INSERT>') || code.includes('\0')) return undefined;
  const sites: ScriptSite[] = [];
  const lines: ScriptLines['lines'] = [];
  let letters = '';
  for (const [index, text] of code.split('\n').entries()) {
    const line = text.trim();
    if (line === '' || comment.test(line)) {
      // A comment may hold the test's answers (a commented-out assert, `# expects 42`): the model's program,
      // which can read its own source, gets an empty line in its place.
      lines.push({ text: '' });
      continue;
    }
    const found = role(line);
    if (found === undefined) return undefined;
    letters += found.letter;
    if (found.site === undefined) lines.push({ text: found.becomes ?? text });
    else {
      lines.push({ text, site: sites.length });
      sites.push({ line: index + 1, source: line, ...found.site });
    }
  }
  return sites.length > 0 && frame.test(letters) ? { sites, lines } : undefined;
}

/** The test with each assert line replaced by the report of its actual value, indented as the line was. */
export function withLineReports(
  parsed: ScriptLines,
  report: (site: number, actual: string) => string,
): string {
  return parsed.lines
    .map(({ text, site }) => {
      if (site === undefined) return text;
      const indent = /^\s*/.exec(text)?.[0] ?? '';
      return `${indent}${report(site, (parsed.sites[site] as ScriptSite).actual)}`;
    })
    .join('\n');
}

/**
 * The split of a test whose expected values a separate program evaluates: `reporter` (the language's serialiser)
 * starts both programs, and `report` writes the statement that reports a value for a site (`strict` in the
 * expected program: a value the serialiser has no text for is an error there). Both reports' texts are compared.
 */
export function reportedSplit(
  parsed: ScriptLines,
  reporter: string,
  report: (site: number, value: string, strict: boolean) => string,
): SplitTest {
  const harness = withLineReports(parsed, (site, actual) => report(site, actual, false));
  const expectedLines = parsed.sites.map((site, index) => report(index, `(${site.expected})`, true));
  return {
    sites: parsed.sites,
    program: (solution) => `${solution}\n${reporter}\n${harness}`,
    expectedProgram: `${reporter}\n${expectedLines.join('\n')}\n`,
    holds: (site, actual, expected) => equalText(site, actual, expected),
  };
}

/**
 * A check that holds exactly when the two reports' texts are equal: each language's serialiser prints equal
 * text exactly when its comparison holds (see each language's file). `show` renders the actual report.
 */
export function equalText(
  site: SplitSite,
  actual: string,
  expected: string | undefined,
  show: (report: string) => string = (report) => report,
): Check {
  if (expected === undefined) return { holds: false, why: 'no expected value' };
  return actual === expected
    ? { holds: true }
    : { holds: false, why: `failed: ${(site as ScriptSite).actual} = ${show(actual).slice(0, 200)}` };
}

/** Tokens of one line of a scripting language by `pattern` (sticky), or undefined at a character it cannot read. */
export function lineTokens(line: string, pattern: RegExp): Token[] | undefined {
  const tokens: Token[] = [];
  const sticky = new RegExp(pattern.source, 'y');
  while (sticky.lastIndex < line.length) {
    const start = sticky.lastIndex;
    const match = sticky.exec(line);
    if (match === null || match[0] === '') return undefined;
    if (/^\s/.test(match[0])) continue;
    tokens.push({ text: match[0], start, end: start + match[0].length });
  }
  return tokens;
}

/** The arguments of a bracketed list `( a, b )` (or `[…]`, `{…}`), split at its top-level commas. */
export function bracketArguments(tokens: readonly Token[]): Token[][] | undefined {
  if (!matching(tokens)) return undefined;
  const inner = tokens.slice(1, -1);
  if (inner.length === 0) return [];
  const commas = topLevel(inner, [',']);
  const args: Token[][] = [];
  let from = 0;
  for (const comma of [...commas, inner.length]) {
    args.push(inner.slice(from, comma));
    from = comma + 1;
  }
  return args.some((arg) => arg.length === 0) ? undefined : args;
}

/** Whether the tokens are one bracketed group, `(…)`, `[…]` or `{…}`, whose first bracket closes at the end. */
function matching(tokens: readonly Token[]): boolean {
  const pairs: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
  const close = pairs[tokens[0]?.text ?? ''];
  if (close === undefined || tokens.at(-1)?.text !== close) return false;
  let depth = 0;
  for (const [index, { text }] of tokens.entries()) {
    if ('([{'.includes(text)) depth++;
    else if (')]}'.includes(text) && --depth === 0) return index === tokens.length - 1;
  }
  return false;
}

/** What a language's literals are made of: constants (strings, numbers), names, punctuation. */
export interface LiteralTokens {
  /** A constant token: a string or a number. */
  constant: RegExp;
  /** The names a literal may use (`true`, `nil`, `c`, …). */
  names: ReadonlySet<string>;
  /** The operators and brackets a literal may use. */
  punctuation: readonly string[];
  /** Whether the name at `index` is accepted anyway (R's `list(a = 1)`, where `a` names an element). */
  named?: (tokens: readonly Token[], index: number) => boolean;
}

/** Whether every token is one of a literal's (`kind`): nothing that could run code of the program's. */
export function isLiteralIn(kind: LiteralTokens, tokens: readonly Token[]): boolean {
  return tokens.every(({ text }, index) =>
    kind.constant.test(text)
      ? true
      : /^[A-Za-z_.]/.test(text)
        ? kind.names.has(text) || (kind.named?.(tokens, index) ?? false)
        : kind.punctuation.includes(text),
  );
}

/** The source text from the first to the last of `tokens` within `line`. */
export function tokensText(line: string, tokens: readonly Token[]): string {
  return line.slice((tokens[0] as Token).start, (tokens.at(-1) as Token).end);
}

/**
 * Whether `tokens` are one call `candidate(…)` (after `prefix`, the tokens naming it: `candidate` `.` `call` in
 * Ruby) whose every argument `literal` accepts.
 */
export function candidateCall(
  tokens: readonly Token[],
  prefix: readonly string[],
  literal: (tokens: readonly Token[]) => boolean,
): boolean {
  if (!prefix.every((text, index) => tokens[index]?.text === text)) return false;
  const args = bracketArguments(tokens.slice(prefix.length));
  return args !== undefined && tokens[prefix.length]?.text === '(' && args.every(literal);
}
