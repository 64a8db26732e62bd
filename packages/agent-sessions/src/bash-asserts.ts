import { type LineRole, type ScriptSite, equalText, scriptLines, withLineReports } from './script-asserts';
import type { SplitTest } from './split-test';

/**
 * Splits a bash test in MultiPL-E's shape:
 *
 *     }
 *
 *     candidate() {
 *         f "$@"
 *     }
 *
 *     set -e
 *     run_test() {
 *         [[ $(candidate "1 2" "3") = "expected" ]]
 *     }
 *
 *     run_test
 *
 * `[[ A = "…" ]]` with a quoted right side compares two strings, byte for byte. The expected side never reaches
 * any program: the host reads it itself, parsing bash's quoting exactly for the forms it accepts (double quotes,
 * where a backslash escapes only `$`, a backquote, `"` and itself and is kept before anything else, and single
 * quotes, where nothing is special, side by side), and refuses any other word (an expansion, an unquoted pattern).
 * The model's program reports its actual side's bytes, in hex, from `"$(candidate …)"` (the same command
 * substitution, so trailing newlines go as they would); the host compares them with the expected string's bytes.
 *
 * A test is split only when every line is one of that frame's (comments and blank lines aside): anything else
 * could fail the test in a way the host would not see.
 */
export function splitBashTest(testCode: string): SplitTest | undefined {
  const parsed = scriptLines(testCode, /^#/, role, /^b?cnbsra+bx$/);
  if (parsed === undefined) return undefined;
  // The reporter goes before `set -e`, the frame's one line outside any function.
  const harness = withLineReports(parsed, (site, actual) => `__fusebox_report ${site} "${actual}"`).replace(
    /^([ \t]*)set -e[ \t]*$/m,
    (line) => `${BASH_REPORTER}\n${line}`,
  );
  return {
    sites: parsed.sites,
    program: (solution) => `${solution}\n${harness}`,
    holds: (site, actual, expected) =>
      equalText(site, actual, expected ?? (site as ScriptSite).expected, (hex) =>
        /^(?:[0-9a-f]{2})*$/.test(hex) ? JSON.stringify(Buffer.from(hex, 'hex').toString('utf8')) : hex,
      ),
  };
}

/** The report of a value: its bytes in hex, through builtins and coreutils called as commands, not functions. */
const BASH_REPORTER = String.raw`__fusebox_report() {
  builtin printf '\nfusebox-report %s %s\n' "$1" "$(builtin printf '%s' "$2" | command od -An -v -tx1 | command tr -d ' \n')"
}`;

function role(line: string): LineRole | undefined {
  if (line === '}') return { letter: 'b' };
  if (/^candidate\s*\(\s*\)\s*\{$/.test(line)) return { letter: 'c' };
  if (/^[A-Za-z_][\w]*\s+"\$@"$/.test(line)) return { letter: 'n' };
  if (line === 'set -e') return { letter: 's' };
  if (/^run_test\s*\(\s*\)\s*\{$/.test(line)) return { letter: 'r' };
  if (line === 'run_test') return { letter: 'x' };
  const site = assertSite(line);
  return site === undefined ? undefined : { letter: 'a', site };
}

/**
 * `[[ $(candidate ARGS) = EXPECTED ]]`: the actual side (`$(candidate ARGS)`, its words quoted or plain, with no
 * expansion) and the expected string's bytes in hex, as the host reads the quoted word.
 */
function assertSite(line: string): { actual: string; expected: string } | undefined {
  const head = /^\[\[\s+\$\(candidate(?=[\s)])/.exec(line);
  if (head === null) return undefined;
  let at = head[0].length;
  for (;;) {
    const space = /^\s*/.exec(line.slice(at))?.[0].length ?? 0;
    at += space;
    if (line[at] === ')') break;
    if (space === 0) return undefined;
    const word = bashWord(line, at, true);
    if (word === undefined) return undefined;
    at = word.end;
  }
  const actual = line.slice(2, at + 1).trim();
  const operator = /^\s+==?\s+/.exec(line.slice(at + 1));
  if (operator === null) return undefined;
  const expected = bashWord(line, at + 1 + operator[0].length, false);
  if (expected === undefined || !/^\s+\]\]$/.test(line.slice(expected.end))) return undefined;
  return { actual, expected: Buffer.from(expected.value, 'utf8').toString('hex') };
}

/**
 * One word at `at`: double- and single-quoted parts side by side (and plain characters that expand to
 * themselves, when `plain`), up to a space or `)`; its value as bash reads it, or undefined for a word this does
 * not read exactly (an expansion, a glob or pattern character, an unterminated quote).
 */
function bashWord(line: string, at: number, plain: boolean): { end: number; value: string } | undefined {
  let value = '';
  let index = at;
  while (index < line.length && !/[\s)]/.test(line[index] as string)) {
    const char = line[index] as string;
    if (char === "'") {
      const close = line.indexOf("'", index + 1);
      if (close < 0) return undefined;
      value += line.slice(index + 1, close);
      index = close + 1;
    } else if (char === '"') {
      index++;
      for (;;) {
        const inner = line[index];
        if (inner === undefined || inner === '$' || inner === '`') return undefined;
        if (inner === '"') break;
        if (inner === '\\' && index + 1 < line.length) {
          const next = line[index + 1] as string;
          value += '$`"\\'.includes(next) ? next : `\\${next}`;
          index += 2;
        } else {
          value += inner;
          index++;
        }
      }
      index++;
    } else if (plain && /[\w.,:/+%@=-]/.test(char)) {
      value += char;
      index++;
    } else return undefined;
  }
  return index === at ? undefined : { end: index, value };
}
