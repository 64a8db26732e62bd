import { type AssertStatement, assertStatements, statementPlace, withReports } from './assert-statements';
import { type Token, callOnLiterals, enclosed, literalTokens, topLevel } from './c-like-tokens';
import type { Check, SplitTest } from './split-test';

/**
 * Splits a Java assert test in MultiPL-E's shape (`assert(f(…) == (EXPECTED));`,
 * `assert(f(…).equals((EXPECTED)));`, `!=`, `!x.equals(…)`, `assert(x)`, `assert(!x)`, with or without
 * parentheses), whose EXPECTED is built of literals and the standard library's value types only:
 * `(new ArrayList<Long>(Arrays.asList((long)2l, (long)3l)))`, `(Optional.of("a"))`, `Pair.with(1l, 2.5f)`,
 * `(new HashMap<String,Long>(Map.of("a", 1l)))`, `(true)`. Both programs print values through one serialiser
 * (JAVA_REPORTER) that tags each number with its boxed type, so the host can judge `.equals` as Java does (text
 * equal: `Long` 5 is not `Integer` 5, lists by their elements, maps and sets whatever their order) and `==` on
 * numbers, chars and booleans by value, with Java's promotion to double; `==` between objects compares
 * references, which the host cannot see, so such a check fails. The expected program holds only the test's
 * literals and runs in its own sandbox; the model's program holds only the actual expressions.
 *
 * A test is split only when nothing else in it can fail it: every `assert` a split site, and no `throw`,
 * `System`, `Runtime`, `if`, loops, `?`, `try` or `return` (they would be checks, or ways around them, that the
 * host cannot see).
 */
export function splitJavaTest(testCode: string): SplitTest | undefined {
  const sites = assertStatements(testCode, siteAt, (tokens, at) => REFUSED.has((tokens[at] as Token).text));
  if (sites === undefined) return undefined;
  const harness = withReports(
    testCode,
    sites,
    (site, actual) => `FuseboxReport.report(${site}, (${actual}));`,
  );
  const expectedLines = sites.map((site, index) => `    FuseboxReport.report(${index}, (${site.expected}));`);
  return {
    sites,
    program: (solution) => `${solution}\n\n${harness}\n${JAVA_REPORTER}`,
    expectedProgram: `import java.util.*;\nimport org.javatuples.*;\n\npublic class Main {\n  public static void main(String[] args) {\n${expectedLines.join('\n')}\n  }\n}\n${JAVA_REPORTER}`,
    holds: (site, actual, expected) => holds(site as JavaSite, actual, expected),
  };
}

type JavaCheck = '==' | '!=' | 'equals' | 'notEquals' | 'truthy' | 'falsy';

/** `expected` is `true` for truthy and falsy checks. */
interface JavaSite extends AssertStatement {
  check: JavaCheck;
}

/** Tokens outside a split site that could fail (or end) the test in a way the host would not see. */
const REFUSED = new Set([
  'throw',
  'System',
  'Runtime',
  'if',
  'while',
  'for',
  'do',
  'switch',
  '?',
  'try',
  'catch',
  'return',
  'Thread',
  'ProcessHandle',
]);

/** Names an expected expression may use: value types of java.util and javatuples, their factories, literals. */
const LITERAL_NAMES = new Set([
  'new',
  'ArrayList',
  'LinkedList',
  'List',
  'Arrays',
  'asList',
  'of',
  'HashMap',
  'TreeMap',
  'Map',
  'entry',
  'HashSet',
  'TreeSet',
  'Set',
  'Optional',
  'empty',
  'Pair',
  'Triplet',
  'Quartet',
  'Quintet',
  'Unit',
  'with',
  'long',
  'int',
  'short',
  'byte',
  'char',
  'float',
  'double',
  'boolean',
  'String',
  'Long',
  'Integer',
  'Short',
  'Byte',
  'Character',
  'Float',
  'Double',
  'Boolean',
  'Object',
  'true',
  'false',
  'null',
]);

function siteAt(code: string, tokens: readonly Token[], at: number): JavaSite | undefined {
  // The statement runs to the first `;` outside brackets; `assert x : message;` has a literal message.
  let depth = 0;
  let end = at + 1;
  let colon: number | undefined;
  for (; end < tokens.length; end++) {
    const text = (tokens[end] as Token).text;
    if ('([{'.includes(text)) depth++;
    else if (')]}'.includes(text)) depth--;
    else if (depth === 0 && text === ':' && colon === undefined) colon = end;
    else if (depth === 0 && text === ';') break;
    if (depth < 0) return undefined;
  }
  if (end >= tokens.length) return undefined;
  if (colon !== undefined && !isLiteral(tokens.slice(colon + 1, end))) return undefined;
  let inner = tokens.slice(at + 1, colon ?? end);
  if (enclosed(inner)) inner = inner.slice(1, -1);
  if (inner.length === 0) return undefined;
  const text = (part: readonly Token[]) =>
    code.slice((part[0] as Token).start, (part[part.length - 1] as Token).end).trim();
  const base = statementPlace(code, tokens, at, end);
  const operators = topLevel(inner, ['==', '!=', '&&', '||', '?', '&', '|', '^', 'instanceof']);
  if (operators.length > 1) return undefined;
  if (operators.length === 1) {
    const operator = inner[operators[0] as number] as Token;
    if (operator.text !== '==' && operator.text !== '!=') return undefined;
    const left = inner.slice(0, operators[0]);
    const right = inner.slice((operators[0] as number) + 1);
    return split(base, left, right, operator.text, text);
  }
  const negated = inner[0]?.text === '!';
  const term = negated ? inner.slice(1) : inner;
  const equals = equalsCall(term);
  if (equals !== undefined)
    return split(base, equals.receiver, equals.argument, negated ? 'notEquals' : 'equals', text);
  if (!callOnLiterals(term, '.', isLiteral)) return undefined;
  return { ...base, check: negated ? 'falsy' : 'truthy', actual: text(term), expected: 'true' };
}

function split(
  base: Omit<JavaSite, 'check' | 'actual' | 'expected'>,
  left: readonly Token[],
  right: readonly Token[],
  check: JavaCheck,
  text: (part: readonly Token[]) => string,
): JavaSite | undefined {
  if (left.length === 0 || right.length === 0) return undefined;
  const leftLiteral = isLiteral(left);
  if (leftLiteral === isLiteral(right)) return undefined;
  if (!callOnLiterals(leftLiteral ? right : left, '.', isLiteral)) return undefined;
  // `E.equals(x)` is `x.equals(E)` for these value types; `==` is symmetric.
  return {
    ...base,
    check,
    actual: text(leftLiteral ? right : left),
    expected: text(leftLiteral ? left : right),
  };
}

/** `receiver.equals(argument)` as the whole of a term, or undefined. */
function equalsCall(term: readonly Token[]): { receiver: Token[]; argument: Token[] } | undefined {
  if (term.length < 5 || term.at(-1)?.text !== ')') return undefined;
  let depth = 0;
  let open = term.length - 1;
  for (; open >= 0; open--) {
    const text = (term[open] as Token).text;
    if (')]}'.includes(text)) depth++;
    else if ('([{'.includes(text) && --depth === 0) break;
  }
  if (open < 2 || term[open - 1]?.text !== 'equals' || term[open - 2]?.text !== '.') return undefined;
  const argument = term.slice(open + 1, -1);
  if (topLevel(argument, [',']).length > 0) return undefined;
  return { receiver: term.slice(0, open - 2), argument };
}

/** Whether tokens make an expected expression: literals and LITERAL_NAMES, nothing of the program's. */
const isLiteral = literalTokens(
  LITERAL_NAMES,
  ['=', '++', '--', '+=', '-=', '->', '::', '@', '['],
  /^[A-Za-z_$]/,
);

/** A number as the serialiser tags it: its boxed type's letter, then its value. */
const NUMBER = /^([BSICJFD])(-?(?:\d+(?:\.\d+)?(?:E-?\d+)?|Infinity|NaN))$/;

function holds(site: JavaSite, actual: string, expected: string | undefined): Check {
  if (expected === undefined) return { holds: false, why: 'no expected value' };
  const failed = (why = `failed: ${site.actual} = ${actual.slice(0, 200)}`): Check => ({ holds: false, why });
  switch (site.check) {
    case 'equals':
      return actual === expected ? { holds: true } : failed();
    case 'notEquals':
      return actual !== expected ? { holds: true } : failed();
    case 'truthy':
      return actual === 'true' ? { holds: true } : failed();
    case 'falsy':
      return actual === 'false' ? { holds: true } : failed();
    default: {
      const equal = primitiveEqual(actual, expected);
      if (equal === undefined)
        return failed(`${site.check} compares object references, which only the JVM sees`);
      return equal === (site.check === '==') ? { holds: true } : failed();
    }
  }
}

/** Java's `==` on two primitives (or their boxes): by value, in double when either is floating; else undefined. */
function primitiveEqual(left: string, right: string): boolean | undefined {
  if (['true', 'false'].includes(left) && ['true', 'false'].includes(right)) return left === right;
  const a = NUMBER.exec(left);
  const b = NUMBER.exec(right);
  if (a === null || b === null) return undefined;
  const floating = 'FD'.includes(a[1] as string) || 'FD'.includes(b[1] as string);
  if (floating) return Number(a[2]) === Number(b[2]);
  return BigInt(a[2] as string) === BigInt(b[2] as string);
}

/**
 * The serialiser both programs end with. Numbers carry their boxed type (J for long, as the JVM names it);
 * floats print as the double they widen to; maps and sets sort their entries' text, as their equals ignores
 * order; a javatuples tuple prints its class and values.
 */
const JAVA_REPORTER = String.raw`
final class FuseboxReport {
  static void report(int site, Object value) {
    StringBuilder out = new StringBuilder("\nfusebox-report ").append(site).append(' ');
    try {
      put(out, value, 0);
    } catch (Throwable error) {
      out.setLength(0);
      out.append("\nfusebox-report ").append(site).append(" ?unreportable");
    }
    out.append('\n');
    System.out.print(out);
    System.out.flush();
  }

  private static String text(Object value, int depth) throws Exception {
    StringBuilder out = new StringBuilder();
    put(out, value, depth);
    return out.toString();
  }

  private static void put(StringBuilder out, Object value, int depth) throws Exception {
    if (depth > 100) throw new IllegalArgumentException("nested too deeply");
    if (value == null) out.append("null");
    else if (value instanceof Boolean) out.append(value);
    else if (value instanceof Byte) out.append('B').append(value);
    else if (value instanceof Short) out.append('S').append(value);
    else if (value instanceof Integer) out.append('I').append(value);
    else if (value instanceof Long) out.append('J').append(value);
    else if (value instanceof Character) out.append('C').append((int) (Character) value);
    else if (value instanceof Float) out.append('F').append(number((double) (Float) value));
    else if (value instanceof Double) out.append('D').append(number((Double) value));
    else if (value instanceof String) {
      out.append('"');
      for (char c : ((String) value).toCharArray()) {
        if (c == '"' || c == '\\') out.append('\\').append(c);
        else if (c < 0x20 || c > 0x7e) out.append(String.format("\\u%04x", (int) c));
        else out.append(c);
      }
      out.append('"');
    } else if (value instanceof java.util.List) {
      out.append('[');
      boolean first = true;
      for (Object item : (java.util.List<?>) value) {
        if (!first) out.append(',');
        first = false;
        put(out, item, depth + 1);
      }
      out.append(']');
    } else if (value instanceof java.util.Set) {
      java.util.List<String> items = new java.util.ArrayList<>();
      for (Object item : (java.util.Set<?>) value) items.add(text(item, depth + 1));
      java.util.Collections.sort(items);
      out.append("set[").append(String.join(",", items)).append(']');
    } else if (value instanceof java.util.Map) {
      java.util.List<String> entries = new java.util.ArrayList<>();
      for (java.util.Map.Entry<?, ?> entry : ((java.util.Map<?, ?>) value).entrySet())
        entries.add(text(entry.getKey(), depth + 1) + ":" + text(entry.getValue(), depth + 1));
      java.util.Collections.sort(entries);
      out.append('{').append(String.join(",", entries)).append('}');
    } else if (value instanceof java.util.Optional) {
      java.util.Optional<?> optional = (java.util.Optional<?>) value;
      if (optional.isPresent()) {
        out.append("Optional(");
        put(out, optional.get(), depth + 1);
        out.append(')');
      } else out.append("Optional.empty");
    } else if (value.getClass().getName().startsWith("org.javatuples.")) {
      out.append(value.getClass().getSimpleName());
      put(out, value.getClass().getMethod("toList").invoke(value), depth + 1);
    } else out.append('?').append(value.getClass().getName());
  }

  private static String number(double value) {
    return Double.toString(value);
  }
}
`;
