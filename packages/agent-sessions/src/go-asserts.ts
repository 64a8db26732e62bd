import { type Token, callOnLiterals, literalTokens, skipsHashLine, tokenize } from './c-like-tokens';
import type { Check, SplitSite, SplitTest } from './split-test';

/**
 * Splits a Go test in MultiPL-E's shape (run by `go test`, the `go_test` language):
 *
 *     func TestF(t *testing.T) {
 *       candidate := f
 *       type test struct { actual interface{}; expected interface{} }
 *       tests := []test{ { actual: candidate(…), expected: EXPECTED }, … }
 *       for i, tc := range tests {
 *         t.Run(fmt.Sprintf("test num % d", i), func(t *testing.T) {
 *           if fmt.Sprintf("%v", tc.actual) != fmt.Sprintf("%v", tc.expected) { t.Errorf(…) }
 *         })
 *       }
 *     }
 *
 * whose EXPECTED is built of literals and Go's own types only (`[]int{1, 2}`, `"a"`, `true`, `map[string]int{"a":
 * 1}`, `[]interface{}{1, "b"}`, `nil`). The test's check is a comparison of texts, `fmt.Sprintf("%v", …)` of
 * each side, so that text is the serialised value: the model's program computes it from its actual expression
 * exactly as the test's loop would (the same call, through the solution's own `fmt` import, on a value passed
 * as an interface{}, as the table's field holds it), the expected program from each literal, and a site holds
 * when the two texts are equal. Each text is reported Go-quoted (`strconv.Quote`, one line, and equal exactly
 * when the texts are).
 *
 * `go test` keeps a passing test's output to itself, so both programs write their report lines to a file of
 * the working directory (REPORT_FILE), which the run fetches back. The model's program can write that file as
 * it likes: like its stdout elsewhere, nothing in it counts without the expected value it never sees.
 *
 * A test is split only when it is that function and nothing else (names of the test and the candidate aside):
 * anything more could fail it where the host would not see.
 */
export function splitGoTest(testCode: string): SplitTest | undefined {
  const parsed = parse(testCode);
  if (parsed === undefined) return undefined;
  const { closes, testName, candidate, sites } = parsed;
  const reports = sites.map((site, index) => `\tfuseboxReport(${index}, fmt.Sprintf("%v", ${site.actual}))`);
  const harness = `${closes ? '}\n\n' : ''}func ${testName}(t *testing.T) {\n\tcandidate := ${candidate}\n${reports.join('\n')}\n}\n`;
  const expectedLines = sites.map(
    (site, index) => `\tfuseboxReport(${index}, fmt.Sprintf("%v", ${site.expected}))`,
  );
  return {
    sites,
    reportFile: REPORT_FILE,
    program: (solution) => `${withImports(solution)}\n\n${harness}\n${GO_REPORTER}`,
    expectedProgram: `package main\n\nimport (\n\t"fmt"\n\t"testing"\n${REPORTER_IMPORTS}\n)\n\nfunc TestFuseboxExpected(t *testing.T) {\n${expectedLines.join('\n')}\n}\n\n${GO_REPORTER}`,
    holds: (site, actual, expected) => holds(site as GoSite, actual, expected),
  };
}

interface GoSite extends SplitSite {
  actual: string;
  expected: string;
}

/** Where both programs write their report lines (`go test` shows a passing test's stdout to no one). */
const REPORT_FILE = '.fusebox-reports';

/** The test's loop, token by token: it compares the `%v` texts of each entry's two sides. */
const LOOP = tokenize(
  'for i, tc := range tests { t.Run(fmt.Sprintf("test num % d", i), func(t *testing.T) { if fmt.Sprintf("%v", tc.actual) != fmt.Sprintf("%v", tc.expected) { t.Errorf("expected \'%s\', got \'%s\'", tc.expected, tc.actual) } }) } }',
) as Token[];

function parse(
  code: string,
): { closes: boolean; testName: string; candidate: string; sites: GoSite[] } | undefined {
  const tokens = tokenize(code);
  if (tokens === undefined || skipsHashLine(code, tokens)) return undefined;
  // A raw string would hide code from the tokeniser.
  if (tokens.some(({ text }) => text === '`')) return undefined;
  let at = 0;
  const take = (...texts: string[]): boolean => {
    for (const text of texts) if (tokens[at++]?.text !== text) return false;
    return true;
  };
  const name = (): string | undefined => {
    const text = tokens[at++]?.text ?? '';
    return /^[A-Za-z_]\w*$/.test(text) ? text : undefined;
  };
  // The `}` that closes the prompt's function, where the test starts with it.
  const closes = tokens[0]?.text === '}';
  if (closes) at++;
  if (!take('func')) return undefined;
  const testName = name();
  if (testName === undefined || !/^Test[A-Z_]/.test(testName)) return undefined;
  if (!take('(', 't', '*', 'testing', '.', 'T', ')', '{', 'candidate', ':', '=')) return undefined;
  const candidate = name();
  if (candidate === undefined) return undefined;
  if (
    !take(
      'type',
      'test',
      'struct',
      '{',
      'actual',
      'interface',
      '{',
      '}',
      'expected',
      'interface',
      '{',
      '}',
      '}',
    ) ||
    !take('tests', ':', '=', '[', ']', 'test', '{')
  )
    return undefined;
  const sites: GoSite[] = [];
  while (tokens[at]?.text === '{') {
    const open = at;
    if (!take('{', 'actual', ':')) return undefined;
    const actualStart = at;
    const actualEnd = valueEnd(tokens, at);
    if (actualEnd === undefined || tokens[actualEnd]?.text !== ',') return undefined;
    at = actualEnd + 1;
    if (!take('expected', ':')) return undefined;
    const expectedStart = at;
    const expectedEnd = valueEnd(tokens, at);
    if (expectedEnd === undefined) return undefined;
    at = expectedEnd;
    if (tokens[at]?.text === ',') at++;
    if (!take('}')) return undefined;
    const actual = tokens.slice(actualStart, actualEnd);
    const expected = tokens.slice(expectedStart, expectedEnd);
    if (actual.length === 0 || expected.length === 0) return undefined;
    if (!isLiteral(expected) || !callOnLiterals(actual, '.', isLiteral)) return undefined;
    const start = (tokens[open] as Token).start;
    const end = (tokens[at - 1] as Token).end;
    sites.push({
      line: code.slice(0, start).split('\n').length,
      source: code.slice(start, end),
      actual: text(code, actual),
      expected: text(code, expected),
    });
    if (tokens[at]?.text === ',') at++;
  }
  if (sites.length === 0 || !take('}')) return undefined;
  const rest = tokens.slice(at);
  if (rest.length !== LOOP.length || rest.some((token, index) => token.text !== LOOP[index]?.text))
    return undefined;
  return { closes, testName, candidate, sites };
}

/** Where a value that starts at `from` ends: the first `,` or `}` outside brackets. */
function valueEnd(tokens: readonly Token[], from: number): number | undefined {
  let depth = 0;
  for (let at = from; at < tokens.length; at++) {
    const { text } = tokens[at] as Token;
    if (depth === 0 && (text === ',' || text === '}')) return at;
    if ('([{'.includes(text)) depth++;
    else if (')]}'.includes(text)) depth--;
  }
  return undefined;
}

function text(code: string, part: readonly Token[]): string {
  return code.slice((part[0] as Token).start, (part[part.length - 1] as Token).end).trim();
}

/** Names an expected expression may use: Go's predeclared types and constants, composite literals' keywords. */
const LITERAL_NAMES = new Set([
  'int',
  'int8',
  'int16',
  'int32',
  'int64',
  'uint',
  'uint8',
  'uint16',
  'uint32',
  'uint64',
  'float32',
  'float64',
  'string',
  'bool',
  'byte',
  'rune',
  'interface',
  'map',
  'true',
  'false',
  'nil',
]);

/** Whether tokens make an expected expression: literals and LITERAL_NAMES, nothing of the program's. */
const isLiteral = literalTokens(LITERAL_NAMES, ['=', ';', '.', '*', '&', '<-', '++', '--', '`', '#define']);

function holds(site: GoSite, actual: string, expected: string | undefined): Check {
  if (expected === undefined) return { holds: false, why: 'no expected value' };
  return actual === expected
    ? { holds: true }
    : { holds: false, why: `failed: fmt.Sprintf("%v", ${site.actual}) = ${actual.slice(0, 200)}` };
}

/** Aliases the reporter's packages go by, so that they clash with nothing of the solution's. */
const REPORTER_IMPORTS = '\tfuseboxos "os"\n\tfuseboxstrconv "strconv"';

/**
 * The solution with the reporter's imports after its package clause (Go wants every import before any other
 * declaration). Without one the file does not compile, as the test would not have.
 */
function withImports(solution: string): string {
  // One run of spaces on each side of the `;`: two runs side by side could split a long one every way.
  const clause = /^[^\S\n]*package[^\S\n]+[A-Za-z_]\w*[^\S\n]*(?:;[^\S\n]*)?(?:\/\/[^\n]*)?$/m.exec(solution);
  if (clause === null) return solution;
  const end = clause.index + clause[0].length;
  return `${solution.slice(0, end)}\n\nimport (\n${REPORTER_IMPORTS}\n)\n${solution.slice(end)}`;
}

/** The reporter both programs end with: one line a site, appended to REPORT_FILE. */
const GO_REPORTER = `func fuseboxReport(site int, text string) {
\tfile, err := fuseboxos.OpenFile(${JSON.stringify(REPORT_FILE)}, fuseboxos.O_WRONLY|fuseboxos.O_CREATE|fuseboxos.O_APPEND, 0600)
\tif err != nil {
\t\tpanic(err)
\t}
\tdefer file.Close()
\tif _, err := file.WriteString("\\nfusebox-report " + fuseboxstrconv.Itoa(site) + " " + fuseboxstrconv.Quote(text) + "\\n"); err != nil {
\t\tpanic(err)
\t}
}
`;
