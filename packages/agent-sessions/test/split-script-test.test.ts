import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readReports } from '../src/assert-reports';
import { splitBashTest } from '../src/bash-asserts';
import { splitLuaTest } from '../src/lua-asserts';
import { splitPerlTest } from '../src/perl-asserts';
import { splitRTest } from '../src/r-asserts';
import { splitRubyTest } from '../src/ruby-asserts';
import type { SplitTest } from '../src/split-test';

// The split of Ruby, Lua, R, Perl and bash tests (script-asserts.ts and one file a language). Each serialiser must
// print equal text exactly when the language's own comparison holds: every pair below is judged twice by the
// real interpreter, once by its own comparison (Test::Unit's `==`, luaunit's assertEquals, R's identical, Test::Deep's
// eq_deeply, bash's `[[ = ]]`) and once through the split's two programs, and the verdicts must agree. The end-to-end verdicts,
// in sandboxes and against hostile solutions, are in apps/api/test/hostile/split-verdict-{forgery,conformance}.

const SPLITTERS: Record<string, (test: string) => SplitTest | undefined> = {
  ruby: splitRubyTest,
  lua: splitLuaTest,
  R: splitRTest,
  perl: splitPerlTest,
  bash: splitBashTest,
};
const splitTest = (language: string, test: string) => SPLITTERS[language]?.(test);

const dir = mkdtempSync(join(tmpdir(), 'fusebox-split-script-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `code` with an interpreter, and returns its stdout. */
function run(command: string, extension: string, code: string): string {
  const file = join(dir, `program${extension}`);
  writeFileSync(file, code);
  return execFileSync(command, [file], { encoding: 'utf8', cwd: dir, stdio: 'pipe' });
}

/** The reports of a program's run, one value a site. */
function reported(stdout: string, sites: number): string[] {
  const { bySite } = readReports(stdout);
  return Array.from({ length: sites }, (_, site) => {
    const values = bySite.get(site);
    if (values?.length !== 1) throw new Error(`site ${site}: ${JSON.stringify(values)}\n${stdout}`);
    return values[0] as string;
  });
}

interface Language {
  language: string;
  command: string;
  extension: string;
  /** A MultiPL-E test whose site `i` checks `candidate(i)` against `expected[i]`. */
  test: (expected: readonly string[]) => string;
  /** The solution: f(i) returns `actual[i]`. */
  solution: (actual: readonly string[]) => string;
  /** A program printing, a line each, whether the language's own comparison holds for each pair. */
  ownVerdicts: (pairs: readonly (readonly [string, string, boolean])[]) => string;
  /** [actual expression, expected literal, whether the language's comparison holds] (checked against it too). */
  pairs: [string, string, boolean][];
}

const LANGUAGES: Language[] = [
  {
    language: 'ruby',
    command: 'ruby',
    extension: '.rb',
    test: (expected) =>
      `require 'test/unit'\nclass TestHumanEval < Test::Unit::TestCase\n  def test_f\n    candidate = method(:f)\n${expected.map((e, i) => `    assert_equal(${e}, candidate.call(${i}))\n`).join('')}  end\nend\n`,
    solution: (actual) =>
      `def f(n)\n  case n\n${actual.map((a, i) => `  when ${i} then ${a}\n`).join('')}  end\nend`,
    ownVerdicts: (pairs) => pairs.map(([a, e]) => `puts((${e}) == (${a}))\n`).join(''),
    pairs: [
      ['1', '1.0', true],
      ['[1, [2.0]]', '[1.0, [2]]', true],
      ['{1 => 2}', '{1.0 => 2}', false],
      ['{"b" => 2, "a" => 1}', '{"a" => 1, "b" => 2.0}', true],
      ['"\\u00e9".b', '"é"', false],
      ['"a".b', '"a"', true],
      ['0.1 + 0.2', '0.3', false],
      ['0.1 * 3', '0.30000000000000004', true],
      ['nil', 'false', false],
      [':a', '"a"', false],
      [':a', ':a', true],
      ['10**20', '1e20', true],
      ['2**53 + 1', '9007199254740992.0', false],
      ['-0.0', '0', true],
      ['Float::NAN', '0', false],
      ['Float::INFINITY', '1e400', true],
      ['[1, 2]', '[2, 1]', false],
      ['"x\\n"', '"x"', false],
      ['{"a" => [1, nil]}', '{"a" => [1.0, nil]}', true],
      ['{[1] => 1}', '{[1.0] => 1}', false],
      ['Struct.new(:a).new(1)', '[1]', false],
      ['[]', '{}', false],
      ['"(()()) ((()))".split(" ")', '["(()())", "((()))"]', true],
    ],
  },
  {
    language: 'lua',
    command: 'lua',
    extension: '.lua',
    test: (expected) =>
      `lu = require('luaunit')\n\nfunction test_humaneval()\nlocal candidate = f\n${expected.map((e, i) => `    lu.assertEquals(candidate(${i}), ${e})\n`).join('')}end\n\nos.exit(lu.LuaUnit.run())\n`,
    solution: (actual) =>
      `local function f(n)\n${actual.map((a, i) => `  if n == ${i} then return ${a} end\n`).join('')}end`,
    ownVerdicts: (pairs) =>
      `local lu = require('luaunit')\n${pairs.map(([a, e]) => `print((pcall(lu.assertEquals, (${a}), (${e}))))\n`).join('')}`,
    pairs: [
      ['1', '1.0', true],
      ['{1, 2}', '{1, 2}', true],
      ['{1, 2}', '{2, 1}', false],
      ['{a = 1}', '{["a"] = 1.0}', true],
      ['"1"', '1', false],
      ['0.1 + 0.2', '0.3', false],
      ['2^53', '9007199254740992', true],
      ['math.tointeger(2^53) + 1', '9007199254740992.0', false],
      ['-0.0', '0', true],
      ['nil', 'false', false],
      ['nil', 'nil', true],
      ['{}', '{}', true],
      ['{1, nil, 3}', '{1, nil, 3}', true],
      ['"a\\0b"', '"a\\0b"', true],
      ['"a\\0b"', '"a"', false],
      ['{{1}, {2}}', '{{1}, {2, 3}}', false],
      ['0/0', '0', false],
      ['1/0', '1e400', true],
      ['{[1.0] = "x"}', '{"x"}', true],
      ['{1, 2, n = 3}', '{1, 2}', false],
      ['"é"', '"\\195\\169"', true],
    ],
  },
  {
    language: 'R',
    command: 'Rscript',
    extension: '.R',
    test: (expected) =>
      `test_humaneval <- function() {\n    candidate <- f\n${expected.map((e, i) => `    if(!identical(candidate(${i}), ${e})){quit('no', 1)}\n`).join('')}}\ntest_humaneval()\n`,
    solution: (actual) =>
      `f <- function(n) {\n${actual.map((a, i) => `  if (n == ${i}) return(${a})\n`).join('')}}`,
    ownVerdicts: (pairs) => pairs.map(([a, e]) => `cat(identical((${a}), (${e})), '\\n')\n`).join(''),
    pairs: [
      ['1L', '1', false],
      ['c(1, 2)', 'c(1, 2)', true],
      ['list(a = 1)', 'list(a = 1)', true],
      ['list(a = 1)', 'list(1)', false],
      ['c(a = 1, b = 2)', "c('b' = 2, 'a' = 1)", false],
      ['-0', '0', true],
      ['NA', 'NA_real_', false],
      ['NaN', 'NaN', true],
      ['NA_real_', 'NaN', false],
      ["'NA'", 'NA_character_', false],
      ['c()', 'NULL', true],
      ['0.1 + 0.2', '0.3', false],
      ["structure(1, class = 'x')", '1', false],
      ["'\\u00e9'", "'é'", true],
      ['list()', 'NULL', false],
      ['TRUE', '1', false],
      ['seq(1, 3)', 'c(1, 2, 3)', false],
      ['as.numeric(1:3)', 'c(1, 2, 3)', true],
      ["strsplit('a b', ' ')[[1]]", "c('a', 'b')", true],
      ['list(1, list(2))', 'list(1, list(2))', true],
      ['c(1, NA)', 'c(1, NA)', true],
      ['Inf', 'Inf', true],
    ],
  },
  {
    language: 'perl',
    command: 'perl',
    extension: '.pl',
    test: (expected) =>
      `use Test::Deep;\n\n\nsub testhumaneval {\n    my $candidate = \\&f;\n${expected.map((e, i) => `        if(eq_deeply($candidate->(${i}),${e})) {\n        print "ok!" }else{\n        exit 1;\n        }\n`).join('')}}\n\ntesthumaneval();\n`,
    solution: (actual) =>
      `sub f {\n    my ($n) = @_;\n${actual.map((a, i) => `    return ${a} if $n == ${i};\n`).join('')}}`,
    ownVerdicts: (pairs) =>
      `use Test::Deep;\n${pairs.map(([a, e]) => `print eq_deeply(${a}, ${e}) ? "true\\n" : "false\\n";\n`).join('')}`,
    pairs: [
      ['1', '1.0', true],
      ['0.1 + 0.2', '0.3', true],
      ['"1.0"', '1', false],
      ['[1, [2]]', '[1.0, [2.0]]', true],
      ['[1, 2]', '[2, 1]', false],
      ['{a => 1, b => [2]}', '{"b" => [2], "a" => 1}', true],
      ['{a => 1}', '{a => 1, b => undef}', false],
      ['undef', '""', false],
      ['undef', 'undef', true],
      ['"x\\n"', '"x"', false],
      ['chr(233)', '"\\x{e9}"', true],
      ['"\\xc3\\xa9"', '"\\x{e9}"', false],
      ['!!1', '1', true],
      ['!!0', '""', true],
      ['1e20', '100000000000000000000', true],
      ['2**53 + 1', '9007199254740993', false],
      ['[]', '{}', false],
      ['bless([], "X")', '[]', false],
      ["[split(' ', '(()()) ((()))')]", '["(()())", "((()))"]', true],
    ],
  },
];

/** Runs both programs of a split and the language's own comparisons; returns [split's verdicts, own verdicts]. */
function verdicts(l: Language): [boolean[], boolean[], SplitTest] {
  const split = splitTest(l.language, l.test(l.pairs.map(([, expected]) => expected)));
  if (split?.expectedProgram === undefined) throw new Error(`${l.language}: not split`);
  const actual = reported(
    run(l.command, l.extension, split.program(l.solution(l.pairs.map(([a]) => a)))),
    l.pairs.length,
  );
  const expected = reported(run(l.command, l.extension, split.expectedProgram), l.pairs.length);
  const own = run(l.command, l.extension, l.ownVerdicts(l.pairs))
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => line === 'true' || line === 'TRUE');
  return [
    split.sites.map((site, index) => split.holds(site, actual[index] as string, expected[index]).holds),
    own,
    split,
  ];
}

describe.each(LANGUAGES.map((l) => [l.language, l] as const))('%s', (_language, l) => {
  it('the split’s verdict is the language’s own comparison, on every pair', () => {
    const [split, own] = verdicts(l);
    // The table says what the language does (so a change of interpreter shows), and the split agrees with it.
    expect(own).toEqual(l.pairs.map(([, , holds]) => holds));
    expect(split).toEqual(own);
  });

  it('keeps the expected literals out of the model’s program, and the model’s code out of the expected one', () => {
    const split = splitTest(l.language, l.test(['987654321', '141093477']));
    expect(split?.sites.map((site) => site.line)).toHaveLength(2);
    const program = split?.program('SOLUTION') ?? '';
    expect(program).toContain('SOLUTION');
    expect(program).not.toMatch(/987654321|141093477/);
    expect(split?.expectedProgram).toMatch(/987654321[\s\S]*141093477/);
    expect(split?.expectedProgram).not.toMatch(/candidate|SOLUTION/);
  });

  it('makes the expected program fail on a value its serialiser does not know (it never prints one)', () => {
    const split = splitTest(l.language, l.test(['424242']));
    const program = split?.expectedProgram ?? '';
    expect(run(l.command, l.extension, program)).toContain('fusebox-report 0 ');
    // No literal the splitter accepts makes such a value: the expected program is edited to hold one.
    const unknown = { ruby: 'Object.new', lua: 'print', R: 'function() 1', perl: 'sub { 1 }' }[
      l.language
    ] as string;
    expect(program).toContain('(424242)');
    expect(() => run(l.command, l.extension, program.replace('(424242)', `(${unknown})`))).toThrow();
  });
});

const ruby = (line: string, extra = '') =>
  `require 'test/unit'\nclass TestHumanEval < Test::Unit::TestCase\n  def test_f\n    candidate = method(:f)\n${extra}    ${line}\n  end\nend\n`;
const lua = (line: string, extra = '') =>
  `lu = require('luaunit')\n\nfunction test_humaneval()\nlocal candidate = f\n${extra}    ${line}\nend\n\nos.exit(lu.LuaUnit.run())\n`;
const r = (line: string, extra = '') =>
  `test_humaneval <- function() {\n    candidate <- f\n${extra}    ${line}\n}\ntest_humaneval()\n`;
const perl = (line: string, extra = '') =>
  `use Test::Deep;\n\nsub testhumaneval {\n    my $candidate = \\&f;\n${extra}        ${line}\n        print "ok!" }else{\n        exit 1;\n        }\n}\n\ntesthumaneval();\n`;
const bash = (line: string, extra = '') =>
  `}\n\ncandidate() {\n    f "$@"\n}\n\nset -e\nrun_test() {\n${extra}    ${line}\n}\n\nrun_test\n`;

describe('what is split and what keeps the marker path', () => {
  it.each([
    ['ruby', ruby('assert_equal(3, candidate.call(1))')],
    ['ruby', ruby('assert_equal({"a" => [1, -2.5e-3, nil, :x]}, candidate.call([1, "b"], {2 => true}))')],
    ['lua', lua('lu.assertEquals(candidate({1, "a"}, {["b"] = -2}), {["x"] = {1.5, true, nil}})')],
    ['R', r("if(!identical(candidate(c(1, 2), list('a' = 'b')), list('x' = c(1L, NA))) ){quit('no', 1)}")],
    ['R', r('if(!identical(candidate(1), TRUE)){quit(save = "no", status = 1)}')],
    ['perl', perl('if(eq_deeply($candidate->([1, "a"], {b => -2}),{"x" => [1.5, undef, \'y\']})) {')],
    ['bash', bash('[[ $(candidate "1 2" \'x\' 3) = "a b" ]]')],
    ['bash', bash("[[ $(candidate) == '' ]]")],
  ])('%s: splits %j', (language, test) => {
    expect(splitTest(language, test)?.sites).toHaveLength(1);
  });

  it.each([
    // Anything in the test besides its frame and asserts could fail it out of the host's sight.
    ['ruby', ruby('assert_equal(3, candidate.call(1))', '    raise "no" if candidate.call(0) == 1\n')],
    ['ruby', ruby('assert_equal(3, candidate.call(1))', '    assert(candidate.call(2))\n')],
    ['ruby', ruby('assert_equal(3, candidate.call(1))', '    exit!(1)\n')],
    ['ruby', `${ruby('assert_equal(3, candidate.call(1))')}__END__\n`],
    ['ruby', `${ruby('assert_equal(3, candidate.call(1))')}=begin\n=end\n`],
    // The actual side is one call of candidate on literals; the expected side a literal.
    ['ruby', ruby('assert_equal(true, candidate.call(1) == 3)')],
    ['ruby', ruby('assert_equal(3, candidate.call(1).abs)')],
    ['ruby', ruby('assert_equal(3, candidate.call(x))')],
    ['ruby', ruby('assert_equal(candidate.call(2), candidate.call(1))')],
    ['ruby', ruby('assert_equal("#{1}", candidate.call(1))')],
    ['ruby', ruby('assert_equal(3, candidate.call(1), "message")')],
    ['ruby', ruby('assert_in_delta(3, candidate.call(1), 0.1)')],
    // Two methods of one name: the first's asserts would never run.
    [
      'ruby',
      ruby('assert_equal(3, candidate.call(1))').replace(
        '  end\n',
        '  end\n  def test_f\n    candidate = method(:f)\n    assert_equal(3, candidate.call(1))\n  end\n',
      ),
    ],
    ['lua', lua('lu.assertEquals(candidate(1), 3)', '    if candidate(0) == 1 then error("no") end\n')],
    ['lua', lua('lu.assertEquals(candidate(1), 3)', '    os.exit(1)\n')],
    ['lua', lua('lu.assertEquals(candidate(1), 3)', '--[[ ]] error("no")\n')],
    ['lua', lua('lu.assertEquals(candidate(1) + 1, 4)')],
    ['lua', lua('lu.assertAlmostEquals(candidate(1), 3, 0.1)')],
    ['lua', lua('lu.assertEquals(candidate(1), {x = 1})')],
    ['lua', lua('lu.assertEquals(candidate(1), 3) -- note')],
    ['R', r("if(!identical(candidate(1), 3)){quit('no', 1)}", '    stopifnot(candidate(0) == 1)\n')],
    ['R', r('stopifnot(isTRUE(all.equal(candidate(1), 3)))')],
    ['R', r("if(!identical(candidate(1), 3)){print('no')}")],
    ['R', r("if(!identical(round(candidate(1)), 3)){quit('no', 1)}")],
    ['R', r("if(!identical(candidate(1), T)){quit('no', 1)}")],
    ['R', r("if(!identical(candidate(1), 3) || TRUE){quit('no', 1)}")],
    ['perl', perl('if(eq_deeply($candidate->(1),3)) {', '    die "no" unless defined &f;\n')],
    ['perl', perl('if(eq_deeply($candidate->(1),"$x")) {')],
    ['perl', perl('if(eq_deeply($candidate->(1),"a@b")) {')],
    ['perl', perl('if(eq_deeply($candidate->(1) + 1,4)) {')],
    ['perl', perl('if(eq_deeply($candidate->(1),3) || 1) {')],
    ['perl', perl('if(eq_deeply($candidate->(1),3)) {').replace('exit 1;', 'exit 0;')],
    [
      'perl',
      perl('if(eq_deeply($candidate->(1),3)) {').replace(
        'use Test::Deep;',
        'use Test::Deep;\nBEGIN { $SIG{__DIE__} = sub { exit 0 } }',
      ),
    ],
    ['bash', bash('[[ $(candidate 1) = "3" ]]', '    [[ -n "$HOME" ]] || exit 1\n')],
    ['bash', bash('[[ $(candidate 1) = 3* ]]')],
    ['bash', bash('[[ $(candidate 1) = "$x" ]]')],
    ['bash', bash('[[ $(candidate 1) = "`id`" ]]')],
    ['bash', bash('[[ $(candidate $x) = "3" ]]')],
    ['bash', bash('[[ $(candidate 1) != "3" ]]')],
    ['bash', bash('[[ $(candidate 1) = "3" ]] || true')],
    ['bash', bash('[[ $(candidate 1) = "3')],
  ])('%s: refuses %j', (language, test) => {
    expect(splitTest(language, test)).toBeUndefined();
  });
});

describe('the test’s own names', () => {
  it.each([
    [
      'ruby',
      "require 'test/unit'\nclass TestExpects987654321 < Test::Unit::TestCase\n  def test_expects_987654321\n    candidate = method(:f)\n    assert_equal(987654321, candidate.call(7))\n  end\nend\n",
      'def f(n) = n',
    ],
    [
      'lua',
      "lu = require('luaunit')\n\nfunction test_expects_987654321()\nlocal candidate = f\n    lu.assertEquals(candidate(7), 987654321)\nend\n\nos.exit(lu.LuaUnit.run())\n",
      'local function f(n) return n end',
    ],
  ] as const)(
    '%s: could spell the answers, so the model’s program runs the test under others',
    (language, test, solution) => {
      const split = splitTest(language, test);
      const program = split?.program(solution) ?? '';
      expect(program).not.toContain('987654321');
      const command = language === 'ruby' ? 'ruby' : 'lua';
      expect(reported(run(command, language === 'ruby' ? '.rb' : '.lua', program), 1)).toEqual(['7']);
    },
  );
});

describe('bash', () => {
  const words = [
    '"a\\!b"',
    "'x y'",
    '"a\\\\\\"b"',
    '"\\$x"',
    '"tab\\there\\n"',
    `'it'"'"'s'`,
    '"é"',
    '""',
    '"\\`"',
    '"trailing\\\\"',
  ];

  it('reads each quoted expected word as bash does', () => {
    for (const word of words) {
      const split = splitTest('bash', bash(`[[ $(candidate 1) = ${word} ]]`));
      const value = execFileSync('bash', ['-c', `printf %s ${word}`]);
      expect(split?.sites, word).toHaveLength(1);
      expect(split?.holds(split.sites[0]!, value.toString('hex'), undefined), word).toEqual({ holds: true });
    }
  });

  it('judges a report as [[ = ]] does: the program’s output, trailing newlines dropped, byte for byte', () => {
    const outputs = [
      "printf 'a\\\\!b\\n\\n'",
      "printf 'x y '",
      'echo',
      "printf 'é'",
      "printf 'e'",
      "printf '$x'",
    ];
    const expected = ['"a\\!b"', "'x y'", '""', '"é"', '"é"', '"\\$x"'];
    const test = bash(expected.map((word, i) => `[[ $(candidate ${i}) = ${word} ]]`).join('\n    '));
    const solution = `f() {\n  case "$1" in\n${outputs.map((o, i) => `    ${i}) ${o} ;;\n`).join('')}  esac`;
    const split = splitTest('bash', test);
    if (split === undefined) throw new Error('not split');
    const actual = reported(run('bash', '.sh', split.program(solution)), outputs.length);
    const own = expected.map(
      (word, i) =>
        run('bash', '.sh', `${solution}\n}\n[[ $(f ${i}) = ${word} ]] && echo true || echo false`).trim() ===
        'true',
    );
    expect(own).toEqual([true, false, true, true, false, true]);
    expect(split.sites.map((site, i) => split.holds(site, actual[i] as string, undefined).holds)).toEqual(
      own,
    );
  });
});
