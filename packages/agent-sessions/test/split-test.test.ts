import { describe, expect, it } from 'vitest';
import { readReports } from '../src/assert-reports';
import { splitTest } from '../src/run-split-test';

// Which assert tests are split between the model's program and the host (split-test.ts), and what each half
// holds. The end-to-end verdicts, against real sandboxes and hostile solutions, are in
// apps/api/test/hostile/split-verdict-forgery.test.ts.

const MULTIPL_E_JS =
  'const assert = require(\'node:assert\');\n\n\nfunction test() {\n  let candidate = match_parens;\n  assert.deepEqual(candidate(["()(", ")"]),"Yes");\n  assert.deepEqual(candidate([")", ")"]),"No");\n}\n\ntest();\n';
const MULTIPL_E_TS = `declare var require: any;\n${MULTIPL_E_JS}`;
const MULTIPL_E_CPP =
  '}\nint main() {\n    auto candidate = f;\n    assert(candidate(("s7 6s 1ss"), (std::vector<long>({(long)1, (long)3}))) == (std::vector<std::string>({(std::string)"7", (std::string)"6"})));\n    assert(candidate((3.5f)) == (true));\n}\n';

const MULTIPL_E_JAVA =
  '    }\n    public static void main(String[] args) {\n    assert(parseNestedParens(("(()())")).equals((new ArrayList<Long>(Arrays.asList((long)2l, (long)3l)))));\n    assert(hasCloseElements((new ArrayList<Float>(Arrays.asList((float)1.0f, (float)2.0f))), (0.3f)) == (false));\n    }\n\n}\n';

describe('splitting assert tests', () => {
  it('splits MultiPL-E tests: the model’s program has each actual expression and no expected value', () => {
    for (const [language, test, expected] of [
      ['nodejs', MULTIPL_E_JS, ['"Yes"', '"No"']],
      ['typescript', MULTIPL_E_TS, ['"Yes"', '"No"']],
      ['cpp', MULTIPL_E_CPP, ['"7"', '(true)']],
      ['java', MULTIPL_E_JAVA, ['(long)2l', '(false)']],
    ] as const) {
      const split = splitTest(language, test);
      expect(split, language).toBeDefined();
      expect(split?.sites).toHaveLength(2);
      const program = split?.program('SOLUTION') ?? '';
      expect(program).toContain('SOLUTION');
      for (const literal of expected) expect(program, `${language}: ${literal}`).not.toContain(literal);
      // C++ and Java evaluate their literals in a program of their own, which has none of the model's code.
      if (language === 'cpp') {
        expect(split?.expectedProgram).toContain('(std::vector<std::string>({(std::string)"7"');
        expect(split?.expectedProgram).not.toContain('candidate');
      } else if (language === 'java') {
        expect(split?.expectedProgram).toContain('(new ArrayList<Long>(Arrays.asList((long)2l, (long)3l)))');
        expect(split?.expectedProgram).not.toMatch(/parseNestedParens|hasCloseElements/);
      } else expect(split?.expectedProgram).toBeUndefined();
    }
  });

  it('splits node assert’s other checks and their forms', () => {
    const split = splitTest(
      'nodejs',
      "import * as assert from 'node:assert';\nassert.strictEqual(f(1), -2);\nassert(f(2) === 'x', 'message');\nassert.ok(!f(3));\nassert(f(4));\nassert.notDeepEqual(f(5), [1, {a: null}]);\n",
    );
    expect(split?.sites.map((site) => site.line)).toEqual([2, 3, 4, 5, 6]);
    expect(split?.program('')).not.toMatch(/-2|'x'|\{a: null\}/);
  });

  it('keeps a test on the marker path when something other than a split assert could fail it', () => {
    const refused: [string, string][] = [
      [
        'nodejs',
        "const assert = require('assert');\nif (f(1) !== 2) throw new Error('no');\nassert.equal(f(2), 3);",
      ],
      ['nodejs', "const assert = require('assert');\nconst expected = 3;\nassert.equal(f(2), expected);"],
      ['nodejs', "const assert = require('assert');\nassert.throws(() => f(2));"],
      ['nodejs', "const assert = require('assert');\nconst check = assert.equal;\ncheck(f(2), 3);"],
      [
        'nodejs',
        "const assert = require('assert');\nassert.equal(f(2), 3);\nprocess.exitCode = f(3) ? 0 : 1;",
      ],
      ['nodejs', "const assert = require('assert/strict');\nassert.equal(f(2), 3);"],
      ['nodejs', 'assert.equal(f(2), 3);'],
      ['nodejs', "const assert = require('assert');\nassert.equal(f(2), {__proto__: [3]});"],
      ['nodejs', "const assert = require('assert');\n#<INSERT>\nassert.equal(f(2), 3);"],
      ['cpp', 'int main() {\n  if (f(1) != 2) return 1;\n  assert(f(2) == 3);\n}'],
      ['cpp', 'int main() {\n  assert(f(2) == g(3));\n}'],
      ['cpp', 'int main() {\n  assert(f(2) == 3 && f(3) == 4);\n}'],
      ['cpp', '#define assert(x) check(x)\nint main() {\n  assert(f(2) == 3);\n}'],
      ['cpp', 'int main() {\n  assert(f(2) == 3);\n  std::exit(0);\n}'],
      ['cpp', 'int main() {\n  return 0;\n}'],
      [
        'java',
        'public static void main(String[] a) {\n  if (f(1) != 2) throw new AssertionError();\n  assert f(2) == 3;\n}',
      ],
      [
        'java',
        'public static void main(String[] a) {\n  try { assert f(2) == 3; } catch (AssertionError e) {}\n}',
      ],
      ['java', 'public static void main(String[] a) {\n  assert f(2) == g(3);\n}'],
      ['java', 'public static void main(String[] a) {\n  assert f(2) == 3 || f(3) == 4;\n}'],
      ['java', 'public static void main(String[] a) {\n  assert f(2) == 3;\n  System.exit(0);\n}'],
      // The actual side must be one call on literal arguments: else the test's own comparison (and its expected
      // literal) would run in the model's process, which could just report it held.
      ['cpp', 'int main() {\n  assert(std::abs(candidate(1) - 2.5) < 1e-6);\n}'],
      ['cpp', 'int main() {\n  assert(candidate(1) < 5);\n}'],
      ['cpp', 'int main() {\n  assert(!(candidate(1) == 3));\n}'],
      ['cpp', 'int main() {\n  auto x = 1;\n  assert(candidate(x) == 3);\n}'],
      ['java', 'public static void main(String[] a) {\n  assert(Math.abs(f(1) - 2.5) < 1e-6);\n}'],
      ['java', 'public static void main(String[] a) {\n  assert(f(1).contains("a"));\n}'],
      ['java', 'public static void main(String[] a) {\n  assert(f(1) > 3);\n}'],
    ];
    for (const [language, test] of refused) expect(splitTest(language, test), test).toBeUndefined();
  });

  it('reads reports from what the program printed, apart from its own output', () => {
    const reports = readReports(
      'hello\nfusebox-report 0 {"value":1}\nfusebox-report 0 2\n\nfusebox-report x 1\nbye',
    );
    expect(reports.bySite.get(0)).toEqual(['{"value":1}', '2']);
    expect(reports.malformed).toEqual(['fusebox-report x 1']);
    expect(reports.output).toBe('hello\nbye');
  });

  it('judges a JavaScript report with node’s own assert semantics, and distrusts a malformed one', () => {
    const split = splitTest(
      'nodejs',
      "const assert = require('assert');\nassert.deepEqual(f(1), [1, '2']);\nassert.deepStrictEqual(f(2), [1, 2]);\nassert(f(3) === undefined);\n",
    );
    const [loose, strict, undefinedSite] = split?.sites ?? [];
    if (!split || !loose || !strict || !undefinedSite) throw new Error('not split');
    expect(split.holds(loose, '{"value":["1",2]}', undefined)).toEqual({ holds: true });
    expect(split.holds(strict, '{"value":["1",2]}', undefined).holds).toBe(false);
    expect(split.holds(undefinedSite, '{"value":{"u":0}}', undefined)).toEqual({ holds: true });
    expect(split.holds(undefinedSite, '{"value":null}', undefined).holds).toBe(false);
    for (const bad of ['', 'null', '{"value":{"num":"7"}}', '{"value":1,"more":2}', '{"value":{"obj":1}}'])
      expect(split.holds(loose, bad, undefined), bad).toMatchObject({
        holds: false,
        why: 'the report is not one the test could have printed',
      });
    expect(split.holds(loose, '{"threw":"Error: no"}', undefined)).toEqual({
      holds: false,
      why: 'threw Error: no',
    });
  });

  it('fails, never throws, on a report object that no primitive conversion accepts', () => {
    const split = splitTest(
      'nodejs',
      "const assert = require('assert');\nassert.equal(f(1), 1);\nassert(f(2) == 2);\nassert.notEqual(f(3), 3);\n",
    );
    const unconvertible = '{"value":{"obj":{"valueOf":1,"toString":1}}}';
    for (const site of split?.sites ?? [])
      expect(split?.holds(site, unconvertible, undefined)).toMatchObject({ holds: false });
    expect(split?.sites).toHaveLength(3);
  });

  it('judges a C++ report by the serialised text, and truth by the number', () => {
    const split = splitTest(
      'cpp',
      'int main() {\n  assert(f(1) == (2));\n  assert(f(2) != 3);\n  assert(!f(3));\n}',
    );
    const [equal, unequal, falsy] = split?.sites ?? [];
    if (!split || !equal || !unequal || !falsy) throw new Error('not split');
    expect(split.holds(equal, '2', '2')).toEqual({ holds: true });
    expect(split.holds(equal, '2.0000000000000004', '2').holds).toBe(false);
    expect(split.holds(unequal, '3', '3').holds).toBe(false);
    expect(split.holds(falsy, '0', '1')).toEqual({ holds: true });
    expect(split.holds(falsy, '[]', '1').holds).toBe(false);
  });

  it('judges a Java report as Java would: equals by type and value, == on primitives by value', () => {
    const split = splitTest(
      'java',
      'public static void main(String[] a) {\n  assert(f(1).equals(5l));\n  assert f(2) == (2.5f) : "msg";\n  assert(f(3) == ("x"));\n  assert(!f(4));\n}',
    );
    const [equals, primitive, reference, falsy] = split?.sites ?? [];
    if (!split || !equals || !primitive || !reference || !falsy) throw new Error('not split');
    expect(split.holds(equals, 'J5', 'J5')).toEqual({ holds: true });
    expect(split.holds(equals, 'I5', 'J5').holds).toBe(false);
    expect(split.holds(primitive, 'D2.5', 'F2.5')).toEqual({ holds: true });
    expect(split.holds(primitive, 'J2', 'F2.5').holds).toBe(false);
    const check = split.holds(reference, '"x"', '"x"');
    expect(check.holds).toBe(false);
    expect(check.holds ? '' : check.why).toContain('references');
    expect(split.holds(falsy, 'false', 'true')).toEqual({ holds: true });
    expect(split.holds(falsy, 'J0', 'true').holds).toBe(false);
  });
});
