import { describe, expect, it } from 'vitest';
import { useRewardSessions } from './reward-episodes';

// Class 5 of the trust boundary (issue 15), beyond Python: assert tests in other languages, and pytest tests
// that use pytest's own fixtures, run in one process with the model's code, and used to pass when it exited 0.
// In each language a wrong solution whose function ends the process with status 0 when the test calls it must
// score 0, and the right solution must score 1 through the same task (so a probe cannot pass by failing to run).
// What is still open (reading the marker from its own program, disabling the checks) is in docs/sessions.md.

interface LanguageCase {
  language: string;
  /** Which form of the test this is, where a language has several. */
  form?: string;
  /** One assert test of add(a, b). */
  test: string;
  right: string;
  /** Wrong, and add() exits the process with status 0 before the test can check what it returned. */
  exits: string;
  /** The task's address-space limit, where the default (1024 MB) is too small for the runtime to start. */
  memoryLimitMB?: number;
}

const CASES: LanguageCase[] = [
  {
    language: 'nodejs',
    test: "const assert = require('assert');\nassert.strictEqual(add(2, 3), 5);\nassert.strictEqual(add(-4, 1), -3);",
    right: 'function add(a, b) { return a + b; }',
    exits: 'function add(a, b) { process.exit(0); }',
  },
  {
    language: 'typescript',
    test: "import assert from 'node:assert';\nassert.strictEqual(add(2, 3), 5);\nassert.strictEqual(add(-4, 1), -3);",
    right: 'function add(a: number, b: number): number { return a + b; }',
    exits: 'function add(a: number, b: number): number { process.exit(0); }',
  },
  {
    language: 'perl',
    test: 'die "wrong" unless add(2, 3) == 5 && add(-4, 1) == -3;',
    right: 'sub add { return $_[0] + $_[1]; }',
    exits: 'sub add { exit 0; }',
  },
  {
    language: 'ruby',
    test: 'raise "wrong" unless add(2, 3) == 5 && add(-4, 1) == -3',
    right: 'def add(a, b) = a + b',
    exits: 'def add(a, b) = exit!(0)',
  },
  {
    language: 'lua',
    test: 'assert(add(2, 3) == 5)\nassert(add(-4, 1) == -3)',
    right: 'function add(a, b) return a + b end',
    exits: 'function add(a, b) os.exit(0) end',
  },
  {
    language: 'R',
    test: 'stopifnot(add(2, 3) == 5, add(-4, 1) == -3)',
    right: 'add <- function(a, b) a + b',
    exits: 'add <- function(a, b) quit(status = 0)',
  },
  {
    language: 'bash',
    test: '[ "$(add 2 3)" = 5 ] || exit 1\n[ "$(add -4 1)" = -3 ] || exit 1',
    right: 'add() { echo $(( $1 + $2 )); }',
    // The test runs add in a subshell: the forgery ends the script itself.
    exits: 'add() { kill -TERM $$ 2>/dev/null; exit 0; }\ntrap "exit 0" TERM',
  },
  {
    language: 'cpp',
    test: '#include <cassert>\nint main() {\n  assert(add(2, 3) == 5);\n  assert(add(-4, 1) == -3);\n  return 0;\n}',
    right: 'int add(int a, int b) { return a + b; }',
    exits: '#include <cstdlib>\nint add(int a, int b) { std::exit(0); }',
  },
  {
    language: 'rust',
    test: 'fn main() {\n    assert_eq!(add(2, 3), 5);\n    assert_eq!(add(-4, 1), -3);\n}',
    right: 'fn add(a: i32, b: i32) -> i32 { a + b }',
    exits: 'fn add(_a: i32, _b: i32) -> i32 { std::process::exit(0) }',
  },
  {
    language: 'go',
    test: 'func main() {\n\tif add(2, 3) != 5 || add(-4, 1) != -3 {\n\t\tpanic("wrong")\n\t}\n}',
    right: 'package main\n\nfunc add(a, b int) int { return a + b }',
    exits: 'package main\n\nimport "os"\n\nfunc add(a, b int) int { os.Exit(0); return 0 }',
  },
  {
    language: 'java',
    test: 'public class Main {\n  public static void main(String[] args) {\n    if (Solution.add(2, 3) != 5 || Solution.add(-4, 1) != -3) throw new AssertionError("wrong");\n  }\n}',
    right: 'class Solution { static int add(int a, int b) { return a + b; } }',
    exits: 'class Solution { static int add(int a, int b) { System.exit(0); return 0; } }',
    // The JVM reserves a quarter of the machine's memory for its heap at start.
    memoryLimitMB: -1,
  },
  // The same tests with main in its other forms: arguments, a throws clause, a result, an early return.
  {
    language: 'cpp',
    form: 'main with arguments, unsynced iostreams',
    test: '#include <iostream>\nint main(int argc, char** argv) {\n  std::ios::sync_with_stdio(false);\n  std::cout << add(2, 3);\n  if (add(2, 3) != 5 || add(-4, 1) != -3) return 1;\n}',
    right: 'int add(int a, int b) { return a + b; }',
    exits: '#include <cstdlib>\nint add(int a, int b) { std::quick_exit(0); }',
  },
  {
    language: 'rust',
    form: 'main returning a Result',
    test: 'fn main() -> Result<(), String> {\n    if add(2, 3) != 5 || add(-4, 1) != -3 {\n        return Err("wrong".into());\n    }\n    Ok(())\n}',
    right: 'fn add(a: i32, b: i32) -> i32 { a + b }',
    exits: 'fn add(_a: i32, _b: i32) -> i32 { std::process::exit(0) }',
  },
  {
    language: 'java',
    form: 'varargs main with a throws clause and an early return',
    test: 'public class Main {\n  static public void main(final String... argv)\n      throws Exception {\n    if (Solution.add(2, 3) == 5 && Solution.add(-4, 1) == -3) return;\n    throw new Exception("wrong");\n  }\n}',
    right: 'class Solution { static int add(int a, int b) { return a + b; } }',
    exits: 'class Solution { static int add(int a, int b) { Runtime.getRuntime().halt(0); return 0; } }',
    memoryLimitMB: -1,
  },
  {
    // A fixture: the trusted runner does not judge it, pytest does, in the model's process.
    language: 'pytest',
    test: 'import pytest\n\n@pytest.fixture\ndef two():\n    return 2\n\ndef test_add(two):\n    assert add(two, 3) == 5\n    assert add(-4, 1) == -3\n',
    right: 'def add(a, b):\n    return a + b',
    exits: 'import os\n\ndef add(a, b):\n    os._exit(0)',
  },
];

const task = ({ language, form }: LanguageCase) => ({
  name: `forgery-exit-${language}${form === undefined ? '' : `-${form.replaceAll(/\W+/g, '-')}`}`,
  language,
});
const { episode, watched } = useRewardSessions(
  CASES.map((c) => ({
    ...task(c),
    prompt: 'Write add(a, b).',
    session_mode: 'fresh',
    tests: [{ name: 'add', code: c.test }],
    ...(c.memoryLimitMB === undefined ? {} : { memory_limit_mb: c.memoryLimitMB }),
  })),
);

describe(
  'assert tests outside the trusted runner, against a solution that exits 0',
  { timeout: 180_000 },
  () => {
    it.each(CASES.map((c) => [c.form === undefined ? c.language : `${c.language} (${c.form})`, c] as const))(
      '%s: no reward for exiting 0 before the test checks; the right solution scores',
      async (_title, c) => {
        const [forged, control] = await watched(() =>
          Promise.all([episode(task(c), [c.exits]), episode(task(c), [c.right])]),
        );
        expect(control.reward, JSON.stringify(control.detail)).toMatchObject({ reward: 1, f2p_count: 1 });
        expect(forged.reward, JSON.stringify(forged.detail)).toMatchObject({ reward: 0, f2p_count: 0 });
        expect(forged.detail[0]).toMatchObject({ passed: false, status: 'runtime_error' });
        expect(forged.detail[0]?.detail).toContain('the test did not run to its end');
        // The marker never shows in what is stored about a test.
        expect(control.detail[0]?.detail).not.toContain('fusebox-test-complete');
      },
    );
  },
);
