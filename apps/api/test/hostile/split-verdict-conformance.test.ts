import { describe, expect, it } from 'vitest';
import { useRewardSessions } from './reward-episodes';

// Conformance of split assert tests (packages/agent-sessions/src/split-test.ts) on real problems: HumanEval/0
// (has_close_elements, booleans over float lists) and HumanEval/1 (separate_paren_groups, lists of strings), with
// their tests as MultiPL-E writes them in Node, TypeScript, C++, Java, Rust, Go (`go test`), Ruby, Lua, R, Perl and bash.
// A right solution scores 1 and a wrong one 0, and both verdicts are the host's (no `trusted: false`): the split must neither reject right answers nor
// let wrong ones through.

interface Problem {
  name: string;
  /** The Python test's cases: arguments and expected value, as JSON. */
  cases: [unknown[], unknown][];
}

const PROBLEMS: Problem[] = [
  {
    name: 'has_close_elements',
    cases: [
      [[[1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3], true],
      [[[1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.05], false],
      [[[1.0, 2.0, 5.9, 4.0, 5.0], 0.95], true],
      [[[1.0, 2.0, 5.9, 4.0, 5.0], 0.8], false],
      [[[1.0, 2.0, 3.0, 4.0, 5.0, 2.0], 0.1], true],
      [[[1.1, 2.2, 3.1, 4.1, 5.1], 1.0], true],
      [[[1.1, 2.2, 3.1, 4.1, 5.1], 0.5], false],
    ],
  },
  {
    name: 'separate_paren_groups',
    cases: [
      [['(()()) ((())) () ((())()())'], ['(()())', '((()))', '()', '((())()())']],
      [['() (()) ((())) (((())))'], ['()', '(())', '((()))', '(((())))']],
      [['(()(())((())))'], ['(()(())((())))']],
      [['( ) (( )) (( )( ))'], ['()', '(())', '(()())']],
    ],
  },
];

const float = (x: number) => (Number.isInteger(x) ? x.toFixed(1) : String(x));
const javascriptValue = (value: unknown): string => JSON.stringify(value);
/** A literal of a typed language: booleans and strings as written, floats with an f, a list by `list`. */
const typedValue =
  (list: (items: unknown[], cast: (item: unknown) => string, strings: boolean) => string) =>
  (value: unknown): string => {
    if (typeof value === 'boolean') return String(value);
    if (typeof value === 'number') return `${float(value)}f`;
    if (typeof value === 'string') return JSON.stringify(value);
    const items = value as unknown[];
    const strings = typeof items[0] === 'string';
    const cast = (item: unknown) =>
      strings ? `(String)${JSON.stringify(item)}` : `(float)${float(item as number)}f`;
    return list(items, cast, strings);
  };
const cppValue = typedValue(
  (items, cast, strings) =>
    `(std::vector<${strings ? 'std::string' : 'float'}>({${items.map((item) => cast(item).replace('(String)', '(std::string)')).join(', ')}}))`,
);
const javaValue = typedValue(
  (items, cast, strings) =>
    `(new ArrayList<${strings ? 'String' : 'Float'}>(Arrays.asList(${items.map(cast).join(', ')})))`,
);
/** A Rust literal as MultiPL-E writes it: `vec![…]`, `String::from("…")`, floats with a point. */
const rustValue = (value: unknown): string => {
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return float(value);
  if (typeof value === 'string') return `String::from(${JSON.stringify(value)})`;
  return `vec![${(value as unknown[]).map(rustValue).join(', ')}]`;
};
/** A Go literal as MultiPL-E writes it: `[]float64{…}`, `[]string{…}`. */
const goValue = (value: unknown): string => {
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return float(value);
  if (typeof value === 'string') return JSON.stringify(value);
  const items = value as unknown[];
  return `[]${typeof items[0] === 'string' ? 'string' : 'float64'}{${items.map(goValue).join(', ')}}`;
};
/** A Ruby, Lua, R or Perl literal: booleans as `yes`/`no`, floats with a point, strings quoted, a list by `list`. */
const scriptValue =
  (yes: string, no: string, list: (items: string[]) => string) =>
  (value: unknown): string => {
    if (typeof value === 'boolean') return value ? yes : no;
    if (typeof value === 'number') return float(value);
    if (typeof value === 'string') return JSON.stringify(value);
    return list((value as unknown[]).map(scriptValue(yes, no, list)));
  };
const rubyValue = scriptValue('true', 'false', (items) => `[${items.join(', ')}]`);
const luaValue = scriptValue('true', 'false', (items) => `{${items.join(', ')}}`);
const rValue = scriptValue('TRUE', 'FALSE', (items) => `c(${items.join(', ')})`);
const perlValue = scriptValue('1', '""', (items) => `[${items.join(', ')}]`);
/** A bash word as MultiPL-E writes one: every value a quoted string, a list's items joined by spaces. */
const bashValue = (value: unknown): string =>
  `"${Array.isArray(value) ? value.map((item) => (typeof item === 'number' ? float(item) : String(item))).join(' ') : typeof value === 'number' ? float(value) : String(value)}"`;
const camel = (name: string) => name.replaceAll(/_(\w)/g, (_, letter: string) => letter.toUpperCase());

/** MultiPL-E's test of a problem in a language, from the Python test's cases. */
function multiplETest(language: string, problem: Problem): string {
  const { name, cases } = problem;
  switch (language) {
    case 'nodejs':
    case 'typescript':
      return `${language === 'typescript' ? 'declare var require: any;\n' : ''}const assert = require('node:assert');\n\n\nfunction test() {\n  let candidate = ${name};\n${cases.map(([args, expected]) => `  assert.deepEqual(candidate(${args.map(javascriptValue).join(', ')}),${javascriptValue(expected)});\n`).join('')}}\n\ntest();\n`;
    case 'cpp':
      return `}\nint main() {\n    auto candidate = ${name};\n${cases.map(([args, expected]) => `    assert(candidate(${args.map((arg) => `(${cppValue(arg)})`).join(', ')}) == (${cppValue(expected)}));\n`).join('')}}\n`;
    case 'rust':
      return `}\n\nfn main() {\n    let candidate = ${name};\n${cases.map(([args, expected]) => `    assert_eq!(candidate(${args.map(rustValue).join(', ')}), ${rustValue(expected)});\n`).join('')}}\n`;
    case 'go_test': {
      const title = name
        .split('_')
        .map((word) => `${word.charAt(0).toUpperCase()}${word.slice(1)}`)
        .join('_');
      return `func Test${title}(t *testing.T) {\n  candidate := ${name}\n\ttype test struct {\n\t\tactual   interface{}\n\t\texpected interface{}\n\t}\n   tests := []test{\n${cases.map(([args, expected]) => `     { actual: candidate(${args.map(goValue).join(', ')}), expected: ${goValue(expected)} },\n`).join('')}   }\n\n\tfor i, tc := range tests {\n\t\tt.Run(fmt.Sprintf("test num % d", i), func(t *testing.T) {\n\t\t\tif fmt.Sprintf("%v", tc.actual) != fmt.Sprintf("%v", tc.expected) {\n\t\t\t\tt.Errorf("expected '%s', got '%s'", tc.expected, tc.actual)\n\t\t\t}\n\t\t})\n\t}\n}\n`;
    }
    case 'ruby':
      return `require 'test/unit'\nclass TestHumanEval < Test::Unit::TestCase\n  def test_${name}\n    candidate = method(:${name})\n${cases.map(([args, expected]) => `    assert_equal(${rubyValue(expected)}, candidate.call(${args.map(rubyValue).join(', ')}))\n`).join('')}  end\nend\n`;
    case 'lua':
      return `lu = require('luaunit')\n\nfunction test_humaneval()\nlocal candidate = ${name}\n${cases.map(([args, expected]) => `    lu.assertEquals(candidate(${args.map(luaValue).join(', ')}), ${luaValue(expected)})\n`).join('')}end\n\nos.exit(lu.LuaUnit.run())\n`;
    case 'R':
      return `test_humaneval <- function() {\n    candidate <- ${name}\n${cases.map(([args, expected]) => `    if(!identical(candidate(${args.map(rValue).join(', ')}), ${rValue(expected)})){quit('no', 1)}\n`).join('')}}\ntest_humaneval()\n`;
    case 'perl':
      return `use Test::Deep;\n\n\nsub testhumaneval {\n    my $candidate = \\&${name};\n${cases.map(([args, expected]) => `        if(eq_deeply($candidate->(${args.map(perlValue).join(', ')}),${perlValue(expected)})) {\n        print "ok!" }else{\n        exit 1;\n        }\n`).join('')}}\n\ntesthumaneval();\n`;
    case 'bash':
      return `}\n\ncandidate() {\n    ${name} "$@"\n}\n\nset -e\nrun_test() {\n${cases.map(([args, expected]) => `    [[ $(candidate ${args.map(bashValue).join(' ')}) = ${bashValue(expected)} ]]\n`).join('')}}\n\nrun_test\n`;
    default: {
      const check = (args: unknown[], expected: unknown) => {
        const call = `${camel(name)}(${args.map((arg) => `(${javaValue(arg)})`).join(', ')})`;
        return typeof expected === 'boolean'
          ? `    assert(${call} == (${javaValue(expected)}));\n`
          : `    assert(${call}.equals((${javaValue(expected)})));\n`;
      };
      return `    }\n    public static void main(String[] args) {\n${cases.map(([args, expected]) => check(args, expected)).join('')}    }\n\n}\n`;
    }
  }
}

/** Right and wrong solutions: the wrong has_close_elements uses <=, the wrong separate_paren_groups keeps spaces. */
const SOLUTIONS: Record<string, Record<string, { right: string; wrong: string }>> = {
  nodejs: {
    has_close_elements: {
      right:
        'function has_close_elements(numbers, threshold) {\n  for (let i = 0; i < numbers.length; i++)\n    for (let j = i + 1; j < numbers.length; j++)\n      if (Math.abs(numbers[i] - numbers[j]) < threshold) return true;\n  return false;\n}',
      wrong:
        'function has_close_elements(numbers, threshold) {\n  for (let i = 0; i < numbers.length; i++)\n    for (let j = i + 1; j < numbers.length; j++)\n      if (Math.abs(numbers[i] - numbers[j]) < threshold * 2) return true;\n  return false;\n}',
    },
    separate_paren_groups: {
      right:
        "function separate_paren_groups(s) {\n  const groups = [];\n  let depth = 0, current = '';\n  for (const c of s) {\n    if (c === ' ') continue;\n    current += c;\n    depth += c === '(' ? 1 : -1;\n    if (depth === 0) { groups.push(current); current = ''; }\n  }\n  return groups;\n}",
      wrong: "function separate_paren_groups(s) {\n  return s.split(' ');\n}",
    },
  },
  typescript: {
    has_close_elements: {
      right:
        'function has_close_elements(numbers: number[], threshold: number): boolean {\n  return numbers.some((a, i) => numbers.some((b, j) => i !== j && Math.abs(a - b) < threshold));\n}',
      wrong:
        'function has_close_elements(numbers: number[], threshold: number): boolean {\n  return numbers.some((a, i) => numbers.some((b, j) => i !== j && Math.abs(a - b) <= threshold * 2));\n}',
    },
    separate_paren_groups: {
      right:
        "function separate_paren_groups(s: string): string[] {\n  const groups: string[] = [];\n  let depth = 0, current = '';\n  for (const c of s.replaceAll(' ', '')) {\n    current += c;\n    depth += c === '(' ? 1 : -1;\n    if (depth === 0) { groups.push(current); current = ''; }\n  }\n  return groups;\n}",
      wrong: "function separate_paren_groups(s: string): string[] {\n  return s.split(' ');\n}",
    },
  },
  cpp: {
    has_close_elements: {
      right:
        '#include<assert.h>\n#include<bits/stdc++.h>\nbool has_close_elements(std::vector<float> numbers, float threshold) {\n    for (size_t i = 0; i < numbers.size(); i++)\n        for (size_t j = i + 1; j < numbers.size(); j++)\n            if (std::abs(numbers[i] - numbers[j]) < threshold) return true;\n    return false;\n',
      wrong:
        '#include<assert.h>\n#include<bits/stdc++.h>\nbool has_close_elements(std::vector<float> numbers, float threshold) {\n    for (size_t i = 0; i < numbers.size(); i++)\n        for (size_t j = i + 1; j < numbers.size(); j++)\n            if (std::abs(numbers[i] - numbers[j]) < threshold * 2) return true;\n    return false;\n',
    },
    separate_paren_groups: {
      right:
        "#include<assert.h>\n#include<bits/stdc++.h>\nstd::vector<std::string> separate_paren_groups(std::string s) {\n    std::vector<std::string> groups;\n    std::string current;\n    int depth = 0;\n    for (char c : s) {\n        if (c == ' ') continue;\n        current += c;\n        depth += c == '(' ? 1 : -1;\n        if (depth == 0) { groups.push_back(current); current.clear(); }\n    }\n    return groups;\n",
      wrong:
        '#include<assert.h>\n#include<bits/stdc++.h>\nstd::vector<std::string> separate_paren_groups(std::string s) {\n    std::vector<std::string> groups;\n    std::stringstream in(s);\n    std::string word;\n    while (in >> word) groups.push_back(word);\n    return groups;\n',
    },
  },
  java: {
    has_close_elements: {
      right:
        'import java.util.*;\nclass Main {\n    public static boolean hasCloseElements(ArrayList<Float> numbers, float threshold) {\n        for (int i = 0; i < numbers.size(); i++)\n            for (int j = i + 1; j < numbers.size(); j++)\n                if (Math.abs(numbers.get(i) - numbers.get(j)) < threshold) return true;\n        return false;\n',
      wrong:
        'import java.util.*;\nclass Main {\n    public static boolean hasCloseElements(ArrayList<Float> numbers, float threshold) {\n        for (int i = 0; i < numbers.size(); i++)\n            for (int j = i + 1; j < numbers.size(); j++)\n                if (Math.abs(numbers.get(i) - numbers.get(j)) < threshold * 2) return true;\n        return false;\n',
    },
    separate_paren_groups: {
      right:
        "import java.util.*;\nclass Main {\n    public static ArrayList<String> separateParenGroups(String s) {\n        ArrayList<String> groups = new ArrayList<>();\n        StringBuilder current = new StringBuilder();\n        int depth = 0;\n        for (char c : s.toCharArray()) {\n            if (c == ' ') continue;\n            current.append(c);\n            depth += c == '(' ? 1 : -1;\n            if (depth == 0) { groups.add(current.toString()); current.setLength(0); }\n        }\n        return groups;\n",
      wrong:
        'import java.util.*;\nclass Main {\n    public static ArrayList<String> separateParenGroups(String s) {\n        return new ArrayList<>(Arrays.asList(s.split(" ")));\n',
    },
  },
  // MultiPL-E's Rust prompts leave the function open, as its C++ ones do: the test starts by closing it.
  rust: {
    has_close_elements: {
      right:
        'fn has_close_elements(numbers: Vec<f64>, threshold: f64) -> bool {\n    for i in 0..numbers.len() {\n        for j in (i + 1)..numbers.len() {\n            if (numbers[i] - numbers[j]).abs() < threshold {\n                return true;\n            }\n        }\n    }\n    false\n',
      wrong:
        'fn has_close_elements(numbers: Vec<f64>, threshold: f64) -> bool {\n    for i in 0..numbers.len() {\n        for j in (i + 1)..numbers.len() {\n            if (numbers[i] - numbers[j]).abs() < threshold * 2.0 {\n                return true;\n            }\n        }\n    }\n    false\n',
    },
    separate_paren_groups: {
      right:
        "fn separate_paren_groups(paren_string: String) -> Vec<String> {\n    let mut groups = Vec::new();\n    let mut current = String::new();\n    let mut depth = 0;\n    for c in paren_string.chars() {\n        if c == ' ' {\n            continue;\n        }\n        current.push(c);\n        if c == '(' { depth += 1; } else { depth -= 1; }\n        if depth == 0 {\n            groups.push(current.clone());\n            current.clear();\n        }\n    }\n    groups\n",
      wrong:
        "fn separate_paren_groups(paren_string: String) -> Vec<String> {\n    paren_string.split(' ').map(|group| group.to_string()).collect()\n",
    },
  },
  // MultiPL-E's Go prompts are a test package that imports testing and fmt for the test.
  go_test: {
    has_close_elements: {
      right:
        'package has_close_elements_test\n\nimport (\n    "testing"\n    "fmt"\n)\n\nfunc has_close_elements(numbers []float64, threshold float64) bool {\n    for i := 0; i < len(numbers); i++ {\n        for j := i + 1; j < len(numbers); j++ {\n            d := numbers[i] - numbers[j]\n            if d < 0 {\n                d = -d\n            }\n            if d < threshold {\n                return true\n            }\n        }\n    }\n    return false\n}\n',
      wrong:
        'package has_close_elements_test\n\nimport (\n    "testing"\n    "fmt"\n)\n\nfunc has_close_elements(numbers []float64, threshold float64) bool {\n    for i := 0; i < len(numbers); i++ {\n        for j := i + 1; j < len(numbers); j++ {\n            d := numbers[i] - numbers[j]\n            if d < 0 {\n                d = -d\n            }\n            if d < threshold*2 {\n                return true\n            }\n        }\n    }\n    return false\n}\n',
    },
    separate_paren_groups: {
      right:
        'package separate_paren_groups_test\n\nimport (\n    "testing"\n    "fmt"\n)\n\nfunc separate_paren_groups(paren_string string) []string {\n    groups := []string{}\n    current := ""\n    depth := 0\n    for _, c := range paren_string {\n        if c == \' \' {\n            continue\n        }\n        current += string(c)\n        if c == \'(\' {\n            depth++\n        } else {\n            depth--\n        }\n        if depth == 0 {\n            groups = append(groups, current)\n            current = ""\n        }\n    }\n    return groups\n}\n',
      wrong:
        'package separate_paren_groups_test\n\nimport (\n    "testing"\n    "fmt"\n    "strings"\n)\n\nfunc separate_paren_groups(paren_string string) []string {\n    return strings.Split(paren_string, " ")\n}\n',
    },
  },
  ruby: {
    has_close_elements: {
      right:
        'def has_close_elements(numbers, threshold)\n  numbers.combination(2).any? { |a, b| (a - b).abs < threshold }\nend',
      wrong:
        'def has_close_elements(numbers, threshold)\n  numbers.combination(2).any? { |a, b| (a - b).abs < threshold * 2 }\nend',
    },
    separate_paren_groups: {
      right:
        "def separate_paren_groups(paren_string)\n  groups = []\n  current = +''\n  depth = 0\n  paren_string.each_char do |c|\n    next if c == ' '\n    current << c\n    depth += c == '(' ? 1 : -1\n    if depth.zero?\n      groups << current\n      current = +''\n    end\n  end\n  groups\nend",
      wrong: "def separate_paren_groups(paren_string)\n  paren_string.split(' ')\nend",
    },
  },
  lua: {
    has_close_elements: {
      right:
        'local function has_close_elements(numbers, threshold)\n  for i = 1, #numbers do\n    for j = i + 1, #numbers do\n      if math.abs(numbers[i] - numbers[j]) < threshold then return true end\n    end\n  end\n  return false\nend',
      wrong:
        'local function has_close_elements(numbers, threshold)\n  for i = 1, #numbers do\n    for j = i + 1, #numbers do\n      if math.abs(numbers[i] - numbers[j]) < threshold * 2 then return true end\n    end\n  end\n  return false\nend',
    },
    separate_paren_groups: {
      right:
        "local function separate_paren_groups(paren_string)\n  local groups, current, depth = {}, '', 0\n  for c in paren_string:gmatch('.') do\n    if c ~= ' ' then\n      current = current .. c\n      depth = depth + (c == '(' and 1 or -1)\n      if depth == 0 then\n        groups[#groups + 1] = current\n        current = ''\n      end\n    end\n  end\n  return groups\nend",
      wrong:
        "local function separate_paren_groups(paren_string)\n  local groups = {}\n  for word in paren_string:gmatch('%S+') do groups[#groups + 1] = word end\n  return groups\nend",
    },
  },
  R: {
    has_close_elements: {
      right:
        'has_close_elements <- function(numbers, threshold) {\n  n <- length(numbers)\n  for (i in seq_len(n)) for (j in seq_len(n)) if (i < j && abs(numbers[i] - numbers[j]) < threshold) return(TRUE)\n  FALSE\n}',
      wrong:
        'has_close_elements <- function(numbers, threshold) {\n  n <- length(numbers)\n  for (i in seq_len(n)) for (j in seq_len(n)) if (i < j && abs(numbers[i] - numbers[j]) < threshold * 2) return(TRUE)\n  FALSE\n}',
    },
    separate_paren_groups: {
      right:
        "separate_paren_groups <- function(paren_string) {\n  groups <- c()\n  current <- ''\n  depth <- 0\n  for (c in strsplit(paren_string, '')[[1]]) {\n    if (c == ' ') next\n    current <- paste0(current, c)\n    depth <- depth + if (c == '(') 1 else -1\n    if (depth == 0) {\n      groups <- c(groups, current)\n      current <- ''\n    }\n  }\n  groups\n}",
      wrong: "separate_paren_groups <- function(paren_string) {\n  strsplit(paren_string, ' ')[[1]]\n}",
    },
  },
  perl: {
    has_close_elements: {
      right:
        'sub has_close_elements {\n    my ($numbers, $threshold) = @_;\n    for my $i (0 .. $#$numbers) {\n        for my $j ($i + 1 .. $#$numbers) {\n            return 1 if abs($numbers->[$i] - $numbers->[$j]) < $threshold;\n        }\n    }\n    return "";\n}',
      wrong:
        'sub has_close_elements {\n    my ($numbers, $threshold) = @_;\n    for my $i (0 .. $#$numbers) {\n        for my $j ($i + 1 .. $#$numbers) {\n            return 1 if abs($numbers->[$i] - $numbers->[$j]) < $threshold * 2;\n        }\n    }\n    return "";\n}',
    },
    separate_paren_groups: {
      right:
        "sub separate_paren_groups {\n    my ($paren_string) = @_;\n    my @groups;\n    my ($current, $depth) = ('', 0);\n    for my $c (split //, $paren_string) {\n        next if $c eq ' ';\n        $current .= $c;\n        $depth += $c eq '(' ? 1 : -1;\n        if ($depth == 0) { push @groups, $current; $current = ''; }\n    }\n    return [@groups];\n}",
      wrong:
        'sub separate_paren_groups {\n    my ($paren_string) = @_;\n    return [split / /, $paren_string];\n}',
    },
  },
  // MultiPL-E's bash prompts leave the function open: the test starts by closing it.
  bash: {
    has_close_elements: {
      right:
        'has_close_elements() {\n    local -a numbers=($1)\n    local i j\n    for ((i = 0; i < ${#numbers[@]}; i++)); do\n        for ((j = i + 1; j < ${#numbers[@]}; j++)); do\n            if awk -v a="${numbers[i]}" -v b="${numbers[j]}" -v t="$2" \'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < t) }\'; then\n                echo true\n                return\n            fi\n        done\n    done\n    echo false',
      wrong:
        'has_close_elements() {\n    local -a numbers=($1)\n    local i j\n    for ((i = 0; i < ${#numbers[@]}; i++)); do\n        for ((j = i + 1; j < ${#numbers[@]}; j++)); do\n            if awk -v a="${numbers[i]}" -v b="${numbers[j]}" -v t="$2" \'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < t * 2) }\'; then\n                echo true\n                return\n            fi\n        done\n    done\n    echo false',
    },
    separate_paren_groups: {
      right:
        "separate_paren_groups() {\n    local s=${1// /} current='' depth=0 i c\n    local -a groups=()\n    for ((i = 0; i < ${#s}; i++)); do\n        c=${s:i:1}\n        current+=$c\n        if [[ $c == '(' ]]; then depth=$((depth + 1)); else depth=$((depth - 1)); fi\n        if ((depth == 0)); then groups+=(\"$current\"); current=''; fi\n    done\n    echo \"${groups[*]}\"",
      wrong: 'separate_paren_groups() {\n    echo "$1"',
    },
  },
};

const LANGUAGES = Object.keys(SOLUTIONS);
const task = (language: string, problem: Problem) => ({
  name: `conformance-${language}-${problem.name}`,
  language,
});
const { episode, watched } = useRewardSessions(
  LANGUAGES.flatMap((language) =>
    PROBLEMS.map((problem) => ({
      ...task(language, problem),
      prompt: `Write ${problem.name}.`,
      session_mode: 'fresh',
      tests: [{ name: 'test', code: multiplETest(language, problem) }],
      // The JVM reserves a quarter of the machine's memory for its heap at start.
      ...(language === 'java' ? { memory_limit_mb: -1 } : {}),
    })),
  ),
);

describe('split assert tests on MultiPL-E problems', { timeout: 240_000 }, () => {
  it.each(
    LANGUAGES.flatMap((language) => PROBLEMS.map((problem) => [language, problem.name, problem] as const)),
  )(
    '%s %s: the right solution scores 1 and the wrong one 0, judged by the host',
    async (language, name, problem) => {
      const solutions = SOLUTIONS[language]?.[name];
      if (solutions === undefined) throw new Error(`no solutions for ${language} ${name}`);
      const [right, wrong] = await watched(() =>
        Promise.all([
          episode(task(language, problem), [solutions.right]),
          episode(task(language, problem), [solutions.wrong]),
        ]),
      );
      expect(right.reward, JSON.stringify(right.detail)).toMatchObject({ reward: 1 });
      expect(wrong.reward, JSON.stringify(wrong.detail)).toMatchObject({ reward: 0 });
      expect(wrong.detail[0]).toMatchObject({ passed: false, status: 'wrong_answer' });
      for (const run of [right, wrong]) expect(run.detail[0]).not.toHaveProperty('trusted');
    },
  );
});
