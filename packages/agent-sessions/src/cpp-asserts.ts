import {
  type AssertStatement,
  assertStatements,
  siteHolds,
  statementPlace,
  withReports,
} from './assert-statements';
import { type Token, callOnLiterals, closingBracket, topLevel } from './c-like-tokens';
import type { Check, SplitTest } from './split-test';

/**
 * Splits a C++ assert test in MultiPL-E's shape, `assert(candidate(…) == EXPECTED);` (also `!=`, and
 * `assert(x)`, `assert(!x)`), whose EXPECTED is built of literals and the standard library's value types only:
 * `(std::vector<long>({(long)1, 2}))`, `(std::string)"a"`, `std::make_tuple(1, 2.5f)`, `std::optional<long>(3)`,
 * `std::map<std::string, long>({{"a", 1}})`, `true`. Both programs print values through one serialiser
 * (CPP_REPORTER), whose text is equal exactly when C++'s `==` holds for these types: integers, bools and chars as
 * their integer, floating values as the double they convert to (so `0.1f` and `0.1` differ, as in C++), strings
 * quoted, containers element by element, an empty optional as `null`. The expected program holds only the
 * test's literals and runs in its own sandbox; the model's program holds only the actual expressions.
 *
 * A test is split only when nothing else in it can fail it: every `assert` a split site, and no `throw`,
 * `exit`, `abort`, `if`, `?` or `return` of anything but 0 (they would be checks the host cannot see).
 */
export function splitCppTest(testCode: string): SplitTest | undefined {
  const sites = assertStatements(testCode, siteAt, (tokens, at) => {
    const { text } = tokens[at] as Token;
    if (REFUSED.has(text) || text.startsWith('#define')) return true;
    return text === 'return' && !(tokens[at + 1]?.text === '0' && tokens[at + 2]?.text === ';');
  });
  if (sites === undefined) return undefined;
  const harness = withReports(
    testCode,
    sites,
    (site, actual) => `fusebox_report::report(${site}, (${actual}));`,
  );
  const expectedLines = sites.map((site, index) => `  fusebox_report::report(${index}, (${site.expected}));`);
  return {
    sites,
    program: (solution) => `${CPP_REPORTER}\n${solution}\n\n${harness}`,
    expectedProgram: `${CPP_REPORTER}\nint main() {\n${expectedLines.join('\n')}\n  return 0;\n}\n`,
    holds: (site, actual, expected) => holds(site as CppSite, actual, expected),
  };
}

type CppCheck = '==' | '!=' | 'truthy' | 'falsy';

/** `expected` is the literal `1` for truthy and falsy checks. */
interface CppSite extends AssertStatement {
  check: CppCheck;
}

/** Tokens outside a split site that could fail (or end) the test in a way the host would not see. */
const REFUSED = new Set([
  'throw',
  'exit',
  '_Exit',
  '_exit',
  'quick_exit',
  'abort',
  'terminate',
  'if',
  'while',
  'for',
  'switch',
  '?',
  'goto',
  'longjmp',
  'raise',
  'kill',
  'static_assert',
  'catch',
]);

/** Names an expected expression may use: the standard library's value types, casts to scalars, bool literals. */
const LITERAL_NAMES = new Set([
  'std',
  'vector',
  'string',
  'tuple',
  'make_tuple',
  'pair',
  'make_pair',
  'optional',
  'nullopt',
  'map',
  'long',
  'int',
  'short',
  'char',
  'unsigned',
  'signed',
  'float',
  'double',
  'bool',
  'size_t',
  'int64_t',
  'uint64_t',
  'int32_t',
  'uint32_t',
  'true',
  'false',
]);

function siteAt(code: string, tokens: readonly Token[], at: number): CppSite | undefined {
  const open = tokens[at + 1];
  if (open?.text !== '(') return undefined;
  const close = closingBracket(tokens, at + 1);
  if (close >= tokens.length || tokens[close + 1]?.text !== ';') return undefined;
  const inner = tokens.slice(at + 2, close);
  // The one top-level comparison, if any; any other top-level operator is a shape this does not split.
  const operators = topLevel(inner, [
    '==',
    '!=',
    '&&',
    '||',
    ',',
    '?',
    '<=',
    '>=',
    '<=>',
    'and',
    'or',
    'not_eq',
  ]);
  const text = (from: number, to: number) =>
    code.slice((inner[from] as Token).start, (inner[to] as Token).end).trim();
  const base = statementPlace(code, tokens, at, close + 1);
  if (inner.length === 0) return undefined;
  if (operators.length === 0) {
    const negated = inner[0]?.text === '!';
    const operand = inner.slice(negated ? 1 : 0);
    if (!callOnLiterals(operand, '::', isLiteral)) return undefined;
    return {
      ...base,
      check: negated ? 'falsy' : 'truthy',
      actual: text(negated ? 1 : 0, inner.length - 1),
      expected: '1',
    };
  }
  if (operators.length !== 1) return undefined;
  const operator = inner[operators[0] as number] as Token;
  if (operator.text !== '==' && operator.text !== '!=') return undefined;
  const left = inner.slice(0, operators[0]);
  const right = inner.slice((operators[0] as number) + 1);
  if (left.length === 0 || right.length === 0) return undefined;
  const leftLiteral = isLiteral(left);
  if (leftLiteral === isLiteral(right)) return undefined;
  if (!callOnLiterals(leftLiteral ? right : left, '::', isLiteral)) return undefined;
  const leftText = text(0, left.length - 1);
  const rightText = text(left.length + 1, inner.length - 1);
  return {
    ...base,
    check: operator.text as CppCheck,
    actual: leftLiteral ? rightText : leftText,
    expected: leftLiteral ? leftText : rightText,
  };
}

/** Whether tokens make an expected expression: literals and LITERAL_NAMES, nothing of the program's. */
function isLiteral(tokens: readonly Token[]): boolean {
  return tokens.every(({ text }) =>
    /^[A-Za-z_]/.test(text)
      ? LITERAL_NAMES.has(text)
      : !['=', '++', '--', '+=', '-=', '->', '.', '&', '*', '['].includes(text),
  );
}

function holds(site: CppSite, actual: string, expected: string | undefined): Check {
  if (expected === undefined) return { holds: false, why: 'no expected value' };
  return siteHolds(site, actual, actual === expected, { truthy: isNonZero(actual), falsy: isZero(actual) });
}

/** C++'s truth of a scalar as the serialiser prints it (bools as 1 and 0); a container has none. */
function isZero(text: string): boolean {
  return /^-?\d/.test(text) && Number(text) === 0;
}
function isNonZero(text: string): boolean {
  return /^-?(?:\d|inf)/.test(text) && Number(text) !== 0;
}

/**
 * The serialiser both programs start with. Every overload is declared before any is defined, so that a
 * vector of tuples finds the tuple's (templates look names up where they are defined).
 */
const CPP_REPORTER = String.raw`#include <cstdio>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
namespace fusebox_report {
inline void put(std::string& out, const std::string& value);
inline void put(std::string& out, const char* value);
inline void put(std::string& out, std::nullopt_t);
template <class T> typename std::enable_if<std::is_arithmetic<T>::value>::type put(std::string& out, T value);
template <class T> void put(std::string& out, const std::vector<T>& value);
template <class T> void put(std::string& out, const std::optional<T>& value);
template <class A, class B> void put(std::string& out, const std::pair<A, B>& value);
template <class... T> void put(std::string& out, const std::tuple<T...>& value);
template <class K, class V> void put(std::string& out, const std::map<K, V>& value);

inline void put(std::string& out, const std::string& value) {
  out += '"';
  for (unsigned char c : value) {
    if (c == '"' || c == '\\') { out += '\\'; out += static_cast<char>(c); }
    else if (c < 0x20 || c >= 0x7f) { char buffer[8]; std::snprintf(buffer, sizeof buffer, "\\x%02x", c); out += buffer; }
    else out += static_cast<char>(c);
  }
  out += '"';
}
inline void put(std::string& out, const char* value) { put(out, std::string(value)); }
inline void put(std::string& out, std::nullopt_t) { out += "null"; }
template <class T> typename std::enable_if<std::is_arithmetic<T>::value>::type put(std::string& out, T value) {
  char buffer[64];
  if constexpr (std::is_floating_point<T>::value) std::snprintf(buffer, sizeof buffer, "%.17g", static_cast<double>(value));
  else if constexpr (std::is_signed<T>::value) std::snprintf(buffer, sizeof buffer, "%lld", static_cast<long long>(value));
  else std::snprintf(buffer, sizeof buffer, "%llu", static_cast<unsigned long long>(value));
  out += buffer;
}
template <class T> void put(std::string& out, const std::vector<T>& value) {
  out += '[';
  for (std::size_t i = 0; i < value.size(); ++i) { if (i) out += ','; put(out, static_cast<T>(value[i])); }
  out += ']';
}
template <class T> void put(std::string& out, const std::optional<T>& value) {
  if (value) put(out, *value); else out += "null";
}
template <class A, class B> void put(std::string& out, const std::pair<A, B>& value) {
  out += '('; put(out, value.first); out += ','; put(out, value.second); out += ')';
}
template <class... T> void put(std::string& out, const std::tuple<T...>& value) {
  out += '(';
  std::apply([&out](const auto&... item) { int i = 0; ((out += (i++ ? "," : ""), put(out, item)), ...); }, value);
  out += ')';
}
template <class K, class V> void put(std::string& out, const std::map<K, V>& value) {
  out += '{';
  bool first = true;
  for (const auto& entry : value) { if (!first) out += ','; first = false; put(out, entry.first); out += ':'; put(out, entry.second); }
  out += '}';
}
template <class T> void report(int site, const T& value) {
  std::string out = "\nfusebox-report " + std::to_string(site) + " ";
  put(out, value);
  out += '\n';
  std::fflush(stdout);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}
}  // namespace fusebox_report
`;
