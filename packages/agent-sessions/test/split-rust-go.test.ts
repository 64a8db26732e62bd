import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readReports } from '../src/assert-reports';
import { splitTest } from '../src/run-split-test';
import type { SplitTest } from '../src/split-test';

// Rust and Go assert tests split between the model's program and the host (rust-asserts.ts, go-asserts.ts):
// which tests are split, what each program holds, and (with the real rustc and go) that the host's comparison
// of the two programs' reports holds exactly when the test's own check would. The verdicts end to end, against
// hostile solutions, are in apps/api/test/hostile/split-verdict-{forgery,conformance}.test.ts.

const MULTIPL_E_RUST =
  '}\n\nfn main() {\n    let candidate = separate_paren_groups;\n    assert_eq!(candidate(String::from("(()()) ((())) () ((())()())")), vec![String::from("(()())"), String::from("((()))"), String::from("()"), String::from("((())()())")]);\n    assert_eq!(candidate(String::from("( ) (( ))")), vec![String::from("()"), String::from("(())")]);\n}\n';

const goTest = (entries: string, loop = GO_LOOP) =>
  `func TestF(t *testing.T) {\n  candidate := f\n\ttype test struct {\n\t\tactual   interface{}\n\t\texpected interface{}\n\t}\n   tests := []test{\n${entries}   }\n\n${loop}}\n`;
const GO_LOOP =
  '\tfor i, tc := range tests {\n\t\tt.Run(fmt.Sprintf("test num % d", i), func(t *testing.T) {\n\t\t\tif fmt.Sprintf("%v", tc.actual) != fmt.Sprintf("%v", tc.expected) {\n\t\t\t\tt.Errorf("expected \'%s\', got \'%s\'", tc.expected, tc.actual)\n\t\t\t}\n\t\t})\n\t}\n';
const MULTIPL_E_GO = goTest(
  '     { actual: candidate([]int{1, 7, -1, -3}), expected: []int{-3, 1, 7, -1} },\n     { actual: candidate([]int{}), expected: []int{} },\n',
);

describe('splitting Rust and Go assert tests', () => {
  it('splits MultiPL-E tests: the model’s program has each actual call and no expected value', () => {
    const rust = splitTest('rust', MULTIPL_E_RUST);
    expect(rust?.sites.map((site) => site.line)).toEqual([5, 6]);
    const program = rust?.program('fn separate_paren_groups(s: String) -> Vec<String> {') ?? '';
    expect(program).toContain(
      'fusebox_report::report(0, &(candidate(String::from("(()()) ((())) () ((())()())"))));',
    );
    expect(program).not.toMatch(/"\(\(\)\(\)\)"|"\(\(\)\)"/);
    expect(rust?.expectedProgram).toContain('String::from("((()))")');
    expect(rust?.expectedProgram).not.toMatch(/candidate|separate_paren_groups/);

    const go = splitTest('go_test', MULTIPL_E_GO);
    expect(go?.sites.map((site) => site.line)).toEqual([8, 9]);
    expect(go?.reportFile).toBe('.fusebox-reports');
    const goProgram =
      go?.program(
        'package f_test\n\nimport (\n    "testing"\n    "fmt"\n)\n\nfunc f(l []int) []int { return l }\n',
      ) ?? '';
    expect(goProgram).toContain('fuseboxReport(0, fmt.Sprintf("%v", candidate([]int{1, 7, -1, -3})))');
    expect(goProgram).not.toContain('-3, 1, 7, -1');
    expect(goProgram).not.toContain('tc.expected');
    // The reporter's imports go right after the package clause, where Go wants them.
    expect(goProgram).toMatch(/^package f_test\n\nimport \(\n\tfuseboxos "os"/);
    expect(go?.program('package f_test; // the tests\nimport "fmt"\n')).toMatch(
      /^package f_test; \/\/ the tests\n\nimport \(\n\tfuseboxos "os"/,
    );
    expect(go?.expectedProgram).toContain('fmt.Sprintf("%v", []int{-3, 1, 7, -1})');
    expect(go?.expectedProgram).not.toMatch(/candidate|\bf\(/);
  });

  it('splits Rust’s other assert forms, and types the expected literals both ways', () => {
    const split = splitTest(
      'rust',
      'fn main() {\n    let candidate = f;\n    assert!(candidate(1));\n    assert!(!candidate(2));\n    assert!(candidate(3) == Some(0.5));\n    assert_ne!(candidate(4), (1, None), );\n    assert_eq!(0x1f, g(5));\n}\n',
    );
    expect(split?.sites).toHaveLength(5);
    const expected = split?.expectedProgram ?? '';
    expect(expected).toContain('report_expected(2, &(Some(0.5f64)), &(Some(0.5f32)));');
    expect(expected).toContain('report_expected(3, &((1i128, None::<()>)), &((1i128, None::<()>)));');
    expect(expected).toContain('report_expected(4, &(0x1fi128), &(0x1fi128));');
  });

  it('keeps a test on the marker path when something other than a split assert could fail it', () => {
    const rust = (body: string) => `fn main() {\n    let candidate = f;\n${body}\n}\n`;
    const refusedRust = [
      '    if candidate(1) != 2 { panic!("no"); }\n    assert_eq!(candidate(2), 3);',
      '    assert_eq!(candidate(2), 3);\n    std::process::exit(0);',
      '    assert_eq!(candidate(2), 3, "message {}", 1);',
      '    assert!((candidate(1) - 2.5).abs() < 1e-6);',
      '    assert!(candidate(1) < 5);',
      '    let x = 1;\n    assert_eq!(candidate(x), 3);',
      '    assert_eq!(candidate(2), g(3));',
      '    debug_assert_eq!(candidate(2), 3);',
      '    #[cfg(test)]\n    assert_eq!(candidate(2), 3);',
      '    /* /* nested */ panic!(); */\n    assert_eq!(candidate(2), 3);',
      '    assert_eq!(candidate(2), 3) ;\n    return;',
      '    assert_eq![candidate(2), 3];',
      '    assert_eq!(candidate(2), vec![0; 3]);',
    ];
    for (const body of refusedRust) expect(splitTest('rust', rust(body)), body).toBeUndefined();

    const entry = '     { actual: candidate(1), expected: 2 },\n';
    const refusedGo = [
      // Another check, a different comparison, an expected value that calls code, a raw string.
      goTest(entry, `\tif candidate(0) == -1 {\n\t\tt.Fatal("no")\n\t}\n${GO_LOOP}`),
      goTest(entry, GO_LOOP.replace('"%v", tc.actual', '"%d", tc.actual')),
      goTest('     { actual: candidate(1), expected: g(2) },\n'),
      goTest('     { actual: candidate(1), expected: `2` },\n'),
      goTest('     { actual: candidate(1) + 1, expected: 2 },\n'),
      goTest('     { expected: 2, actual: candidate(1) },\n'),
      `${goTest(entry)}\nfunc TestMore(t *testing.T) { t.Fatal("no") }\n`,
    ];
    for (const test of refusedGo) expect(splitTest('go_test', test), test).toBeUndefined();
    expect(splitTest('go', MULTIPL_E_GO)).toBeUndefined();
  });

  it("finds a Go solution's package clause in one pass along a long line", { timeout: 20_000 }, () => {
    // Two runs of spaces side by side split this one every way: 22 s (157 ms at 8,000 spaces).
    const program = splitTest('go_test', MULTIPL_E_GO)?.program(`package f_test${' '.repeat(100_000)}x\n`);
    expect(program).toMatch(/^package f_test {100000}x\n/);
  });
});

/** Runs a program with rustc or `go test` in a fresh directory: its report lines, or the file it wrote. */
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function run(language: 'rust' | 'go_test', code: string, split?: SplitTest): string {
  const dir = mkdtempSync(join(tmpdir(), 'fusebox-split-'));
  dirs.push(dir);
  if (language === 'rust') {
    writeFileSync(join(dir, 'main.rs'), code);
    execFileSync('rustc', ['main.rs', '-o', 'main'], { cwd: dir, stdio: 'pipe' });
    return execFileSync(join(dir, 'main'), { cwd: dir, encoding: 'utf8' });
  }
  writeFileSync(join(dir, 'main_test.go'), code);
  const stdout = execFileSync('go', ['test', 'main_test.go'], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, GO111MODULE: 'off', GOCACHE: goCache() },
  });
  return split?.reportFile === undefined ? stdout : readFileSync(join(dir, split.reportFile), 'utf8');
}

/** One Go build cache for this file's runs: the standard library compiles once. */
let goCacheDir: string | undefined;
function goCache(): string {
  goCacheDir ??= mkdtempSync(join(tmpdir(), 'fusebox-split-gocache-'));
  if (!dirs.includes(goCacheDir)) dirs.push(goCacheDir);
  return goCacheDir;
}

/** Each site's verdict from the host: the model's program's report against the expected program's. */
function verdicts(language: 'rust' | 'go_test', split: SplitTest, solution: string): boolean[] {
  const actual = readReports(run(language, split.program(solution), split)).bySite;
  const expected = readReports(run(language, split.expectedProgram ?? '', split)).bySite;
  return split.sites.map(
    (site, index) => split.holds(site, actual.get(index)?.[0] ?? '', expected.get(index)?.[0]).holds,
  );
}

describe('the host’s comparison is the test’s own', { timeout: 120_000 }, () => {
  it('Rust: a report holds exactly when `==` holds between the value and the literal, as Rust types it', () => {
    // [the value's type, the value, the literal]: each compared by the split and by rustc's own `==`.
    const cases: [string, string, string][] = [
      ['i64', '5', '5'],
      ['i64', '5', '6'],
      ['u8', '255', '255'],
      ['isize', '-3', '-3'],
      ['f64', '0.1 + 0.2', '0.3'],
      ['f64', '0.5', '0.5'],
      ['f64', '-0.0', '0.0'],
      ['f64', 'f64::NAN', '0.0'],
      ['f64', '1e300 * 10.0', '1e300'],
      ['f32', '0.1', '0.1'],
      // The literal rounds to the same f32: equal in Rust, and in the split.
      ['f32', '0.1', '0.1000000001'],
      ['f32', '0.1', '0.10001'],
      ['bool', 'true', 'false'],
      ['char', "'a'", "'a'"],
      ['String', 'String::from("a\\"b\\n")', 'String::from("a\\"b\\n")'],
      ['String', 'String::from("a")', '"a"'],
      ['String', 'String::from("a")', '"b"'],
      ['Vec<String>', 'vec![String::from("a")]', 'vec![String::from("a"), String::from("b")]'],
      ['Vec<isize>', 'Vec::new()', 'Vec::<isize>::new()'],
      ['Vec<Vec<i64>>', 'vec![vec![1], vec![]]', 'vec![vec![1], vec![]]'],
      ['Vec<f64>', 'vec![1.0, 2.0]', 'vec![1.0, 2.0]'],
      ['Vec<f64>', 'vec![1.0, 2.0]', 'vec![1.0, 2.5]'],
      ['Option<i64>', 'None', 'None'],
      ['Option<i64>', 'Some(3)', 'Some(3)'],
      ['Option<i64>', 'Some(3)', 'None'],
      ['Option<String>', 'Some("x".to_string())', 'Some(String::from("x"))'],
      ['(i64, f64)', '(1, 2.5)', '(1, 2.5)'],
      ['(i64, f64)', '(1, 2.5)', '(1, 2.0)'],
      ['(String, Vec<u32>)', '(String::new(), vec![7])', '(String::from(""), vec![7])'],
    ];
    const functions = cases
      .map(([type, value], index) => `fn c${index}() -> ${type} { ${value} }`)
      .join('\n');
    const test = `fn main() {\n${cases.map(([, , literal], index) => `    assert_eq!(c${index}(), ${literal});`).join('\n')}\n}\n`;
    const split = splitTest('rust', test);
    if (split === undefined) throw new Error('the test was not split');
    const truth = run(
      'rust',
      `${functions}\nfn main() {\n${cases.map(([, , literal], index) => `    println!("{}", c${index}() == ${literal});`).join('\n')}\n}\n`,
    )
      .trim()
      .split('\n')
      .map((line) => line === 'true');
    expect(truth).toContain(true);
    expect(truth).toContain(false);
    expect(verdicts('rust', split, functions)).toEqual(truth);
  });

  it('Go: a report holds exactly when the test’s `%v` texts are equal', () => {
    const cases: [string, string, string][] = [
      ['int', '5', '5'],
      ['float64', '5.0', '5'],
      ['float64', '0.1 + 0.2', '0.3'],
      ['[]string', '[]string{"a b", "c"}', '[]string{"a", "b c"}'],
      ['[]string', '[]string{"a\\nb"}', '[]string{"a\\nb"}'],
      ['[]int', '[]int{}', '[]int{}'],
      ['map[string]int', 'map[string]int{"b": 1, "a": 2}', 'map[string]int{"a": 2, "b": 1}'],
      ['[]interface{}', '[]interface{}{1, "x"}', '[]interface{}{1, "x"}'],
      ['*int', 'nil', 'nil'],
      ['bool', 'true', 'false'],
    ];
    const solution = `package main\n\nimport (\n\t"fmt"\n\t"testing"\n)\n\n${cases.map(([type, value], index) => `func c${index}() ${type} { return ${value} }`).join('\n')}\n`;
    const entries = cases.map(
      ([, , literal], index) =>
        `     { actual: ${index === 0 ? 'candidate' : `c${index}`}(), expected: ${literal} },\n`,
    );
    const test = goTest(entries.join('')).replace('candidate := f', 'candidate := c0');
    const split = splitTest('go_test', test);
    if (split === undefined) throw new Error('the test was not split');
    const truthTest = `${solution}\nfunc TestTruth(t *testing.T) {\n\tvar _ = c0\n${cases.map(([, , literal], index) => `\tvar a${index}, e${index} interface{} = c${index}(), ${literal}\n\tfmt.Println(fmt.Sprintf("%v", a${index}) == fmt.Sprintf("%v", e${index}))`).join('\n')}\n\tt.Fail()\n}\n`;
    // The truth run fails on purpose, so that `go test` shows what it printed.
    let truthOutput = '';
    try {
      run('go_test', truthTest);
    } catch (error) {
      truthOutput = String((error as { stdout?: string }).stdout);
    }
    const truth = truthOutput
      .split('\n')
      .filter((line) => line === 'true' || line === 'false')
      .map((line) => line === 'true');
    expect(truth).toHaveLength(cases.length);
    expect(truth).toContain(false);
    expect(verdicts('go_test', split, solution)).toEqual(truth);
  });
});
