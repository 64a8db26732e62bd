import assert from 'node:assert';
import { inspect, isDeepStrictEqual } from 'node:util';
import ts from 'typescript';
import { JAVASCRIPT_REPORTER, decodeReport } from './javascript-values';
import type { Check, SplitSite, SplitTest } from './split-test';

/**
 * Splits a Node (JavaScript or TypeScript) assert test, in the shapes MultiPL-E and SandboxFusion write
 * (`assert.deepEqual(candidate(…), EXPECTED)`, `assert.strictEqual`, `assert(x === EXPECTED)`, `assert(x)`,
 * `assert(!x)`), whose EXPECTED is a literal: numbers, strings, booleans, null, undefined, NaN, Infinity, and
 * arrays and objects of them. The host evaluates that literal itself and runs node's assert of the same name on
 * it and the rebuilt report, so `deepEqual` stays loose and `strictEqual` strict.
 *
 * A test is split only when nothing else in it can fail it: node's `assert` bound once, from `require` or
 * `import` of `assert` / `node:assert`, every use of it a split site, no `throw` and no `process`. Anything else
 * stays on the completion-marker path, marked untrusted (docs/sessions.md).
 */
export function splitJavaScriptTest(testCode: string): SplitTest | undefined {
  if (testCode.includes('#<INSERT>')) return undefined;
  const file = ts.createSourceFile('test.ts', testCode, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  if (parseFailed(file)) return undefined;
  const sites: JavaScriptSite[] = [];
  const binders: ts.Node[] = [];
  const uses: ts.Identifier[] = [];
  let refused = false;
  const visit = (node: ts.Node): void => {
    if (refused) return;
    if (ts.isThrowStatement(node) || (ts.isIdentifier(node) && node.text === 'process')) {
      refused = true;
      return;
    }
    if (ts.isIdentifier(node) && node.text === 'assert') uses.push(node);
    const binding = assertBinding(node);
    if (binding !== undefined) binders.push(binding);
    if (ts.isExpressionStatement(node) && ts.isCallExpression(node.expression)) {
      const site = siteOf(node.expression, file);
      if (site !== undefined) {
        sites.push(site);
        return; // its actual expression is the model's to evaluate; nothing in it is a check
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  // Every `assert` is its binding or the head of a split site: no other way to check, pass or alias it.
  const explained = uses.every(
    (use) =>
      binders.includes(use) || sites.some((site) => site.callee.pos <= use.pos && use.end <= site.callee.end),
  );
  if (refused || sites.length === 0 || binders.length !== 1 || !explained) return undefined;

  const harness = replaceSites(withoutComments(file), sites);
  return {
    sites,
    program: (solution) => `${JAVASCRIPT_REPORTER}${solution}\n\n${harness}`,
    holds: (site, actual) => holds(site as JavaScriptSite, actual),
  };
}

type CheckName =
  | 'deepEqual'
  | 'deepStrictEqual'
  | 'equal'
  | 'strictEqual'
  | 'notDeepEqual'
  | 'notDeepStrictEqual'
  | 'notEqual'
  | 'notStrictEqual'
  | '=='
  | '==='
  | '!='
  | '!=='
  | 'truthy'
  | 'falsy';

interface JavaScriptSite extends SplitSite {
  check: CheckName;
  /** The expected value, evaluated here from the test's literal. */
  expected: unknown;
  /** The `assert` or `assert.x` the site calls, and the call's span in the test. */
  callee: ts.Node;
  start: number;
  end: number;
  actual: string;
}

const TWO_ARGUMENT_CHECKS = new Set<CheckName>([
  'deepEqual',
  'deepStrictEqual',
  'equal',
  'strictEqual',
  'notDeepEqual',
  'notDeepStrictEqual',
  'notEqual',
  'notStrictEqual',
]);
const COMPARISONS: Partial<Record<ts.SyntaxKind, CheckName>> = {
  [ts.SyntaxKind.EqualsEqualsToken]: '==',
  [ts.SyntaxKind.EqualsEqualsEqualsToken]: '===',
  [ts.SyntaxKind.ExclamationEqualsToken]: '!=',
  [ts.SyntaxKind.ExclamationEqualsEqualsToken]: '!==',
};

/** The split of one `assert…(…)` call, or undefined if it is no shape this module knows. */
function siteOf(call: ts.CallExpression, file: ts.SourceFile): JavaScriptSite | undefined {
  const callee = call.expression;
  const method =
    ts.isIdentifier(callee) && callee.text === 'assert'
      ? 'ok'
      : ts.isPropertyAccessExpression(callee) &&
          ts.isIdentifier(callee.expression) &&
          callee.expression.text === 'assert'
        ? callee.name.text
        : undefined;
  if (method === undefined) return undefined;
  const [first, second, message, ...rest] = call.arguments;
  if (first === undefined || rest.length > 0) return undefined;
  const base = {
    callee,
    line: file.getLineAndCharacterOfPosition(call.getStart(file)).line + 1,
    source: call.getText(file),
    start: call.getStart(file),
    end: call.end,
  };
  const split = (actual: ts.Expression, expected: ts.Expression, check: CheckName) => {
    const [side, literal] = closed(expected) ? [actual, expected] : [expected, actual];
    const value = literalValue(literal);
    return value === NOT_LITERAL || !singleTerm(side)
      ? undefined
      : { ...base, check, expected: value.value, actual: side.getText(file) };
  };
  if (TWO_ARGUMENT_CHECKS.has(method as CheckName)) {
    if (second === undefined || (message !== undefined && !closed(message))) return undefined;
    return split(first, second, method as CheckName);
  }
  if (method !== 'ok' || message !== undefined || (second !== undefined && !closed(second))) return undefined;
  const test = unwrap(first);
  if (ts.isBinaryExpression(test) && COMPARISONS[test.operatorToken.kind] !== undefined)
    return split(test.left, test.right, COMPARISONS[test.operatorToken.kind] as CheckName);
  if (ts.isPrefixUnaryExpression(test) && test.operator === ts.SyntaxKind.ExclamationToken)
    return singleTerm(test.operand)
      ? { ...base, check: 'falsy', expected: undefined, actual: test.operand.getText(file) }
      : undefined;
  return singleTerm(test)
    ? { ...base, check: 'truthy', expected: undefined, actual: test.getText(file) }
    : undefined;
}

/**
 * Whether an actual expression is one call of the code under test on literal arguments (`candidate(7, [1])`,
 * `solution.f("a")`), the only literals it holds being inputs. Anything else (`Math.abs(x - E) < 1e-6`,
 * `x === E && y === F`, `Boolean(x === E)`, `x.includes(E)`, `x === E` against `true`) would carry the test's own
 * comparison, and so its expected literals, into the model's process, where its result is the model's to print.
 */
function singleTerm(node: ts.Expression): boolean {
  const call = unwrap(node);
  if (!ts.isCallExpression(call) || call.questionDotToken !== undefined) return false;
  let callee = unwrap(call.expression);
  while (ts.isPropertyAccessExpression(callee) && callee.questionDotToken === undefined)
    callee = unwrap(callee.expression);
  return ts.isIdentifier(callee) && !(callee.text in GLOBAL_LITERALS) && call.arguments.every(closed);
}

/** The binding of `assert` this node makes, if it binds it to node's assert module; undefined otherwise. */
function assertBinding(node: ts.Node): ts.Node | undefined {
  const isAssertModule = (specifier: ts.Node | undefined) =>
    specifier !== undefined &&
    ts.isStringLiteral(specifier) &&
    ['assert', 'node:assert'].includes(specifier.text);
  if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === 'assert') {
    const init = node.initializer;
    const required =
      init !== undefined &&
      ts.isCallExpression(init) &&
      ts.isIdentifier(init.expression) &&
      init.expression.text === 'require' &&
      init.arguments.length === 1 &&
      isAssertModule(init.arguments[0]);
    return required ? node.name : undefined;
  }
  if (ts.isImportDeclaration(node) && isAssertModule(node.moduleSpecifier)) {
    const clause = node.importClause;
    if (clause?.name?.text === 'assert' && clause.namedBindings === undefined) return clause.name;
    const bindings = clause?.namedBindings;
    if (
      clause?.name === undefined &&
      bindings !== undefined &&
      ts.isNamespaceImport(bindings) &&
      bindings.name.text === 'assert'
    )
      return bindings.name;
  }
  return undefined;
}

/** The test with every site replaced by its report: `__fuseboxReport(site, () => (actual))`. */
/**
 * The test's text with every comment blanked (its characters spaces, its newlines kept, so that offsets hold): a
 * comment may hold the test's answers (`// expects 42`, a commented-out assert), and the model's program, which
 * can read its own source, must not.
 */
function withoutComments(file: ts.SourceFile): string {
  const text = file.getFullText();
  const comments = new Map<number, number>();
  const visit = (node: ts.Node): void => {
    for (const { pos, end } of [
      ...(ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []),
      ...(ts.getTrailingCommentRanges(text, node.getEnd()) ?? []),
    ])
      comments.set(pos, end);
    for (const child of node.getChildren(file)) visit(child);
  };
  visit(file);
  const parts: string[] = [];
  let at = 0;
  for (const [pos, end] of [...comments].sort(([a], [b]) => a - b)) {
    if (pos < at) continue;
    parts.push(text.slice(at, pos), text.slice(pos, end).replaceAll(/[^\n]/g, ' '));
    at = end;
  }
  parts.push(text.slice(at));
  return parts.join('');
}

function replaceSites(testCode: string, sites: readonly JavaScriptSite[]): string {
  let harness = testCode;
  for (const [index, site] of [...sites.entries()].reverse())
    harness = `${harness.slice(0, site.start)}__fuseboxReport(${index}, () => (${site.actual}))${harness.slice(site.end)}`;
  return harness;
}

function holds(site: JavaScriptSite, reportText: string): Check {
  const report = decodeReport(reportText);
  if (report === undefined) return { holds: false, why: 'the report is not one the test could have printed' };
  if ('threw' in report) return { holds: false, why: `threw ${report.threw}` };
  const actual = report.value;
  return passes(site, actual)
    ? { holds: true }
    : { holds: false, why: `failed: ${site.actual} = ${describe(actual)}` };
}

/** A reported object may refuse conversion to a primitive (`==` then throws, as in node): that assert failed. */
function passes(site: JavaScriptSite, actual: unknown): boolean {
  try {
    return CHECKS[site.check](actual, site.expected);
  } catch {
    return false;
  }
}

/**
 * Each check as a predicate with node's semantics. Node's own assert builds a message from both values when it
 * throws: 400 to 800 ms of the event loop for a reported array of a million strings (deepStrictEqual even with
 * a message of its own). So the loose deep comparison, which node exports only as an assertion, is called with a
 * message (its failure then costs nothing), and the rest are computed directly.
 */
const CHECKS: Record<CheckName, (actual: unknown, expected: unknown) => boolean> = {
  deepEqual: (actual, expected) => looseDeepEqual(actual, expected),
  deepStrictEqual: (actual, expected) => isDeepStrictEqual(actual, expected),
  equal: (actual, expected) => looseEqual(actual, expected),
  strictEqual: (actual, expected) => Object.is(actual, expected),
  notDeepEqual: (actual, expected) => !looseDeepEqual(actual, expected),
  notDeepStrictEqual: (actual, expected) => !isDeepStrictEqual(actual, expected),
  notEqual: (actual, expected) => !looseEqual(actual, expected),
  notStrictEqual: (actual, expected) => !Object.is(actual, expected),
  '==': (actual, expected) => actual == expected,
  '===': (actual, expected) => actual === expected,
  '!=': (actual, expected) => actual != expected,
  '!==': (actual, expected) => actual !== expected,
  truthy: (actual) => Boolean(actual),
  falsy: (actual) => !actual,
};

function looseDeepEqual(actual: unknown, expected: unknown): boolean {
  try {
    assert.deepEqual(actual, expected, 'differs');
    return true;
  } catch {
    return false;
  }
}

/** assert.equal's rule: `==`, and NaN equals NaN. */
function looseEqual(actual: unknown, expected: unknown): boolean {
  return actual == expected || (Number.isNaN(actual) && Number.isNaN(expected));
}

function describe(value: unknown): string {
  const text = inspect(value, { depth: 6, breakLength: Infinity, maxArrayLength: 50, maxStringLength: 200 });
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

const NOT_LITERAL = Symbol('not a literal');

/** Whether an expression is a literal this module evaluates: it needs nothing of the program to compute. */
function closed(node: ts.Expression): boolean {
  return literalValue(node) !== NOT_LITERAL;
}

/** A literal's value, computed here (never evaluated as code), or NOT_LITERAL. */
function literalValue(node: ts.Expression): { value: unknown } | typeof NOT_LITERAL {
  const inner = unwrap(node);
  if (ts.isNumericLiteral(inner)) return { value: Number(inner.text.replaceAll('_', '')) };
  if (ts.isBigIntLiteral(inner)) return { value: BigInt(inner.text.slice(0, -1).replaceAll('_', '')) };
  if (ts.isStringLiteral(inner) || ts.isNoSubstitutionTemplateLiteral(inner)) return { value: inner.text };
  if (inner.kind === ts.SyntaxKind.TrueKeyword) return { value: true };
  if (inner.kind === ts.SyntaxKind.FalseKeyword) return { value: false };
  if (inner.kind === ts.SyntaxKind.NullKeyword) return { value: null };
  if (ts.isIdentifier(inner) && inner.text in GLOBAL_LITERALS) return { value: GLOBAL_LITERALS[inner.text] };
  if (ts.isPrefixUnaryExpression(inner) && inner.operator === ts.SyntaxKind.MinusToken) {
    const operand = literalValue(inner.operand);
    if (operand === NOT_LITERAL || !['number', 'bigint'].includes(typeof operand.value)) return NOT_LITERAL;
    return { value: -(operand.value as number) };
  }
  if (ts.isPrefixUnaryExpression(inner) && inner.operator === ts.SyntaxKind.PlusToken) {
    const operand = literalValue(inner.operand);
    return operand === NOT_LITERAL || typeof operand.value !== 'number' ? NOT_LITERAL : operand;
  }
  if (ts.isArrayLiteralExpression(inner)) {
    const items: unknown[] = [];
    for (const element of inner.elements) {
      if (ts.isOmittedExpression(element)) items.push(undefined);
      else {
        const item = literalValue(element);
        if (item === NOT_LITERAL) return NOT_LITERAL;
        items.push(item.value);
      }
    }
    return { value: items };
  }
  if (ts.isObjectLiteralExpression(inner)) {
    const object: Record<string, unknown> = {};
    for (const property of inner.properties) {
      if (!ts.isPropertyAssignment(property)) return NOT_LITERAL;
      const { name } = property;
      const key =
        ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)
          ? name.text
          : undefined;
      // `__proto__: x` in a literal sets the prototype: not data.
      if (key === undefined || key === '__proto__') return NOT_LITERAL;
      const value = literalValue(property.initializer);
      if (value === NOT_LITERAL) return NOT_LITERAL;
      object[key] = value.value;
    }
    return { value: object };
  }
  return NOT_LITERAL;
}

const GLOBAL_LITERALS: Record<string, unknown> = { undefined, NaN: Number.NaN, Infinity };

/** The expression inside parentheses and TypeScript's type-only wrappers (`x as T`, `<T>x`, `x!`, `x satisfies T`). */
function unwrap(node: ts.Expression): ts.Expression {
  let inner = node;
  while (
    ts.isParenthesizedExpression(inner) ||
    ts.isAsExpression(inner) ||
    ts.isTypeAssertionExpression(inner) ||
    ts.isNonNullExpression(inner) ||
    ts.isSatisfiesExpression(inner)
  )
    inner = inner.expression;
  return inner;
}

function parseFailed(file: ts.SourceFile): boolean {
  return ((file as unknown as { parseDiagnostics?: unknown[] }).parseDiagnostics?.length ?? 0) > 0;
}

// V8 compiles a function when it is first called: the first parse compiles much of TypeScript's scanner and
// parser, which took 40 ms on a quiet machine and stalled the event loop for 845 ms under the test suite's load
// (a /v1/ping answered that late). Parsing a small test once when the server loads pays it before any request.
splitJavaScriptTest(
  "const assert = require('node:assert');\nassert.deepEqual(f([1, 'a'], {b: null}), [true, -1.5]);\n",
);
