import {
  type AssertStatement,
  assertStatements,
  siteHolds,
  statementPlace,
  withReports,
} from './assert-statements';
import {
  type Token,
  callOnLiterals,
  closingBracket,
  enclosed,
  literalTokens,
  skipsHashLine,
  tokenize,
  topLevel,
} from './c-like-tokens';
import type { Check, SplitTest } from './split-test';

/**
 * Splits a Rust assert test in MultiPL-E's shape, `fn main() { let candidate = f; assert_eq!(candidate(…),
 * EXPECTED); … }` (also `assert_ne!`, `assert!(x)`, `assert!(!x)`, `assert!(a == b)`, `assert!(a != b)`), whose
 * EXPECTED is built of literals and the standard library's value types only: `vec![1, 2]`,
 * `Vec::<isize>::new()`, `String::from("a")`, `"a"`, `Some(1.5)`, `None`, `(1, true)`, `'c'`.
 *
 * Both programs print values through one serialiser (RUST_REPORTER), whose text is equal exactly when Rust's
 * `==` holds between the actual value and the literal as Rust types it against that value: integers of every
 * width as their decimal value; floats as their own type's shortest round-trip text with the type's name
 * (`0.1f32`, `1.0f64`), 0.0 and -0.0 alike, NaN never equal to a literal; bools, chars (quoted) and strings
 * (`String`, `&str`, quoted and escaped as Debug does) each in a form of their own; `Vec`, slices and arrays as
 * `[…]`; `Option` as `Some(…)` and `None`; tuples as `(…)`; references as their referent. An unsuffixed literal
 * takes the actual's type in the test, which the expected program cannot see, so it evaluates EXPECTED twice,
 * once with its unsuffixed integers as i128 and floats as f64 and once with floats as f32, and a site holds
 * when the actual's text is either (a float's text names its width, so only the one of the actual's width can
 * match; a value mixing f32 and f64, as `(f32, f64)`, matches neither and fails, a test this does not judge
 * right). What the host does not see is the type itself: an actual whose type would not compile against the
 * literal (an empty `Vec<String>` against `Vec::<isize>::new()`) is judged by its value. The expected program
 * holds only the test's literals and runs in its own sandbox; the model's program holds only the actual
 * expressions.
 *
 * A test is split only when nothing else in it can fail it: outside its asserts only `fn main`, `let name =
 * path;` and calls, no macro, no `if`/`match`/loop/`return`/`?`, no `std::process`, no attribute, no block
 * comment (Rust nests them, the tokeniser does not).
 */
export function splitRustTest(testCode: string): SplitTest | undefined {
  if (testCode.includes('/*')) return undefined;
  const tokens = tokenize(testCode);
  if (tokens === undefined || skipsHashLine(testCode, tokens)) return undefined;
  const sites = assertStatements(testCode, siteAt, refused, (text) => ASSERTS.has(text));
  if (sites === undefined) return undefined;
  const harness = withReports(
    testCode,
    sites,
    (site, actual) => `fusebox_report::report(${site}, &(${actual}));`,
  );
  const expectedLines = sites.map(
    (site, index) => `    fusebox_report::report_expected(${index}, &(${site.wide}), &(${site.narrow}));`,
  );
  return {
    sites,
    program: (solution) => `${solution}\n\n${harness}\n${RUST_REPORTER}`,
    // A float literal beyond f32 is f32's infinity in its narrow form: rustc's lint would refuse the whole program.
    expectedProgram: `#![allow(overflowing_literals)]\n${RUST_REPORTER}\nfn main() {\n${expectedLines.join('\n')}\n}\n`,
    holds: (site, actual, expected) => holds(site as RustSite, actual, expected),
  };
}

const ASSERTS = new Set(['assert', 'assert_eq', 'assert_ne']);

type RustCheck = '==' | '!=' | 'truthy' | 'falsy';

/** `expected` is the literal as written; `wide` and `narrow` are what the expected program evaluates. */
interface RustSite extends AssertStatement {
  check: RustCheck;
  /** EXPECTED with unsuffixed integers as i128 and floats as f64. */
  wide: string;
  /** EXPECTED with unsuffixed integers as i128 and floats as f32. */
  narrow: string;
}

/**
 * What may stand outside a split site: `fn main() {`, `let name = path;`, calls on literals, and the `}` that
 * closes the prompt's function. Everything else (a macro's `!`, `?`, `if`, `return`, `std::process::exit`)
 * could fail or end the test where the host would not see it.
 */
const OUTSIDE_PUNCTUATION = new Set(['{', '}', '(', ')', ';', '=', ',', '::']);
const REFUSED_NAMES = new Set([
  'if',
  'else',
  'match',
  'while',
  'loop',
  'for',
  'return',
  'break',
  'continue',
  'unsafe',
  'use',
  'as',
  'mod',
  'impl',
  'trait',
  'struct',
  'enum',
  'static',
  'const',
  'extern',
  'crate',
  'self',
  'super',
  'async',
  'await',
  'move',
  'type',
  'macro_rules',
  'std',
  'core',
  'process',
  'exit',
  'abort',
  'panic',
]);

function refused(tokens: readonly Token[], at: number): boolean {
  const { text } = tokens[at] as Token;
  if (/^[A-Za-z_]/.test(text)) return REFUSED_NAMES.has(text);
  if (/^[\d"']/.test(text)) return false;
  return !OUTSIDE_PUNCTUATION.has(text);
}

/** Names an expected expression may use: the standard library's value types and their constructors. */
const LITERAL_NAMES = new Set([
  'vec',
  'Vec',
  'new',
  'String',
  'from',
  'to_string',
  'to_owned',
  'Some',
  'None',
  'true',
  'false',
  'as',
  'i8',
  'i16',
  'i32',
  'i64',
  'i128',
  'isize',
  'u8',
  'u16',
  'u32',
  'u64',
  'u128',
  'usize',
  'f32',
  'f64',
  'bool',
  'char',
  'str',
]);

/** Whether tokens make an expected expression: literals and LITERAL_NAMES, nothing of the program's. */
const isLiteral = literalTokens(LITERAL_NAMES, [
  '=',
  ';',
  '?',
  '|',
  '||',
  '&&',
  '..',
  '#define',
  '+=',
  '-=',
  '*=',
  '/=',
]);

function siteAt(code: string, tokens: readonly Token[], at: number): RustSite | undefined {
  const macro = (tokens[at] as Token).text;
  if (tokens[at + 1]?.text !== '!' || tokens[at + 2]?.text !== '(') return undefined;
  const close = closingBracket(tokens, at + 2);
  if (close >= tokens.length || tokens[close + 1]?.text !== ';') return undefined;
  let inner = tokens.slice(at + 3, close);
  if (inner.at(-1)?.text === ',') inner = inner.slice(0, -1);
  if (inner.length === 0) return undefined;
  const base = statementPlace(code, tokens, at, close + 1);
  if (macro !== 'assert') {
    const commas = topLevel(inner, [',']);
    // A third argument is a message, evaluated only when the check fails: refused with the rest.
    if (commas.length !== 1) return undefined;
    const comma = commas[0] as number;
    return split(
      code,
      base,
      inner.slice(0, comma),
      inner.slice(comma + 1),
      macro === 'assert_eq' ? '==' : '!=',
    );
  }
  const operators = topLevel(inner, ['==', '!=', '&&', '||', ',']);
  if (operators.length === 0) {
    const negated = inner[0]?.text === '!';
    let term = inner.slice(negated ? 1 : 0);
    while (enclosed(term)) term = term.slice(1, -1);
    if (!callOnLiterals(term, '::', isLiteral)) return undefined;
    const actual = text(code, term);
    return {
      ...base,
      check: negated ? 'falsy' : 'truthy',
      actual,
      expected: 'true',
      wide: 'true',
      narrow: 'true',
    };
  }
  if (operators.length !== 1) return undefined;
  const operator = inner[operators[0] as number] as Token;
  if (operator.text !== '==' && operator.text !== '!=') return undefined;
  const index = operators[0] as number;
  return split(code, base, inner.slice(0, index), inner.slice(index + 1), operator.text);
}

function split(
  code: string,
  base: Omit<RustSite, 'check' | 'actual' | 'expected' | 'wide' | 'narrow'>,
  left: readonly Token[],
  right: readonly Token[],
  check: '==' | '!=',
): RustSite | undefined {
  if (left.length === 0 || right.length === 0) return undefined;
  const leftLiteral = isLiteral(left);
  if (leftLiteral === isLiteral(right)) return undefined;
  const actual = leftLiteral ? right : left;
  const expected = leftLiteral ? left : right;
  if (!callOnLiterals(actual, '::', isLiteral)) return undefined;
  return {
    ...base,
    check,
    actual: text(code, actual),
    expected: text(code, expected),
    wide: typedLiterals(code, expected, 'f64'),
    narrow: typedLiterals(code, expected, 'f32'),
  };
}

function text(code: string, part: readonly Token[]): string {
  return code.slice((part[0] as Token).start, (part[part.length - 1] as Token).end).trim();
}

/** A numeric token's own type suffix, which the expected program keeps. */
const SUFFIXED = /(?:[iu](?:8|16|32|64|128|size)|f32|f64)$/;

/**
 * The expected expression with each unsuffixed number typed: integers as i128 (every integer type's values fit,
 * and the serialiser prints them all alike), floats as `floatType`.
 */
function typedLiterals(code: string, part: readonly Token[], floatType: 'f32' | 'f64'): string {
  let out = '';
  let from = (part[0] as Token).start;
  for (const [index, { text, start, end }] of part.entries()) {
    out += code.slice(from, start);
    from = end;
    out += typedToken(text, part[index + 1]?.text, floatType);
  }
  return out;
}

function typedToken(text: string, next: string | undefined, floatType: 'f32' | 'f64'): string {
  // A bare `None` has no type of its own there; any prints as `None` (beside a `Some` it fails to compile, and
  // the test keeps the marker path).
  if (text === 'None') return next === '::' ? text : 'None::<()>';
  if (!/^\.?\d/.test(text)) return text;
  if (/^0[xob]/i.test(text)) return /[iu](?:8|16|32|64|128|size)$/.test(text) ? text : `${text}i128`;
  if (SUFFIXED.test(text)) return text;
  if (/[.eE]/.test(text)) return `${text.endsWith('.') ? `${text}0` : text}${floatType}`;
  return `${text}i128`;
}

function holds(site: RustSite, actual: string, expected: string | undefined): Check {
  if (expected === undefined) return { holds: false, why: 'no expected value' };
  const [wide, narrow = wide] = expected.split('\t');
  return siteHolds(site, actual, actual === wide || actual === narrow, {
    truthy: actual === 'true',
    falsy: actual === 'false',
  });
}

/**
 * The serialiser both programs hold, as a module: one `Report` impl per value type, and `report` (a site's
 * actual value) and `report_expected` (a site's literal typed both ways, the two texts joined by a tab, which
 * no value's text holds). The crate is built as edition 2015 (rustc without flags), hence the explicit lifetimes.
 */
const RUST_REPORTER = String.raw`
#[allow(dead_code)]
mod fusebox_report {
    use std::io::Write;
    pub trait Report {
        fn put(&self, out: &mut String);
    }
    macro_rules! integers {
        ($($t:ty),*) => { $(impl Report for $t { fn put(&self, out: &mut String) { out.push_str(&self.to_string()); } })* };
    }
    integers!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);
    macro_rules! floats {
        ($($t:ty => $tag:expr),*) => { $(impl Report for $t {
            fn put(&self, out: &mut String) {
                if *self == 0.0 { out.push_str("0.0"); } else { out.push_str(&format!("{:?}", self)); }
                out.push_str($tag);
            }
        })* };
    }
    floats!(f32 => "f32", f64 => "f64");
    impl Report for bool {
        fn put(&self, out: &mut String) { out.push_str(if *self { "true" } else { "false" }); }
    }
    impl Report for char {
        fn put(&self, out: &mut String) { out.push_str(&format!("{:?}", self)); }
    }
    impl Report for str {
        fn put(&self, out: &mut String) { out.push_str(&format!("{:?}", self)); }
    }
    impl Report for String {
        fn put(&self, out: &mut String) { self.as_str().put(out); }
    }
    impl<'a, T: Report + ?Sized> Report for &'a T {
        fn put(&self, out: &mut String) { (**self).put(out); }
    }
    impl<'a, T: Report + ?Sized> Report for &'a mut T {
        fn put(&self, out: &mut String) { (**self).put(out); }
    }
    impl<T: Report + ?Sized> Report for Box<T> {
        fn put(&self, out: &mut String) { (**self).put(out); }
    }
    impl<T: Report> Report for [T] {
        fn put(&self, out: &mut String) {
            out.push('[');
            for (i, item) in self.iter().enumerate() { if i > 0 { out.push(','); } item.put(out); }
            out.push(']');
        }
    }
    impl<T: Report> Report for Vec<T> {
        fn put(&self, out: &mut String) { self.as_slice().put(out); }
    }
    impl<T: Report, const N: usize> Report for [T; N] {
        fn put(&self, out: &mut String) { self[..].put(out); }
    }
    impl<T: Report> Report for Option<T> {
        fn put(&self, out: &mut String) {
            match self { Some(value) => { out.push_str("Some("); value.put(out); out.push(')'); } None => out.push_str("None") }
        }
    }
    impl Report for () {
        fn put(&self, out: &mut String) { out.push_str("()"); }
    }
    macro_rules! tuples {
        ($(($($name:ident $index:tt),+))*) => { $(impl<$($name: Report),+> Report for ($($name,)+) {
            fn put(&self, out: &mut String) {
                out.push('(');
                $( if $index > 0 { out.push(','); } self.$index.put(out); )+
                out.push(')');
            }
        })* };
    }
    tuples!((A 0) (A 0, B 1) (A 0, B 1, C 2) (A 0, B 1, C 2, D 3) (A 0, B 1, C 2, D 3, E 4) (A 0, B 1, C 2, D 3, E 4, F 5));
    fn emit(line: String) {
        let stdout = std::io::stdout();
        let mut lock = stdout.lock();
        let _ = lock.flush();
        let _ = lock.write_all(line.as_bytes());
        let _ = lock.flush();
    }
    pub fn report<T: Report + ?Sized>(site: usize, value: &T) {
        let mut out = format!("\nfusebox-report {} ", site);
        value.put(&mut out);
        out.push('\n');
        emit(out);
    }
    pub fn report_expected<A: Report + ?Sized, B: Report + ?Sized>(site: usize, wide: &A, narrow: &B) {
        let mut out = format!("\nfusebox-report {} ", site);
        wide.put(&mut out);
        out.push('\t');
        narrow.put(&mut out);
        out.push('\n');
        emit(out);
    }
}
`;
