import type { Language } from '@fusebox/sandbox-client/protocol';
import { describe, expect, it } from 'vitest';
import { useExecutor } from './use-executor';

// What SandboxFusion's runners promise for each language (its public runner tests and runners, read, not copied):
// a program reads stdin and prints; a failing program is `Failed` with its message on stderr or stdout. Every
// language of the `all` profile is here. Where its toolchain is installed the program must behave so; where it
// is not, the answer must be a SandboxError naming the setup command, never a fake failed run.

const { executor } = useExecutor({ concurrency: 2 });

interface Conformance {
  /** Reads one line of stdin (`21`) and prints `hello <2 × it>`. */
  echo: string;
  /** Fails with a message containing `boom`. */
  fail: string;
}

const CASES: Partial<Record<Language, Conformance>> = {
  python: { echo: 'print("hello", int(input()) * 2)', fail: 'raise ValueError("boom")' },
  pytest: {
    echo: 'def test_double():\n    assert 21 * 2 == 42\n',
    fail: 'def test_boom():\n    assert "boom" == "bang"\n',
  },
  bash: { echo: 'read n; echo "hello $((n * 2))"', fail: 'echo boom >&2; exit 3' },
  nodejs: {
    echo: 'const n = Number(require("fs").readFileSync(0, "utf8")); console.log("hello", n * 2);',
    fail: 'throw new Error("boom");',
  },
  typescript: {
    echo: 'import { readFileSync } from "node:fs";\nconst n: number = Number(readFileSync(0, "utf8"));\nconsole.log("hello", n * 2);',
    fail: 'const e: Error = new Error("boom");\nthrow e;',
  },
  cpp: {
    echo: '#include <iostream>\nint main() { int n; std::cin >> n; std::cout << "hello " << n * 2 << std::endl; }',
    fail: '#include <cstdio>\nint main() { std::fprintf(stderr, "boom\\n"); return 1; }',
  },
  java: {
    // javatuples is on the class path, as in SandboxFusion's runtime.
    echo: 'import java.util.Scanner;\nimport org.javatuples.Pair;\npublic class Main { public static void main(String[] a) { int n = new Scanner(System.in).nextInt(); Pair<String, Integer> p = Pair.with("hello", n * 2); System.out.println(p.getValue0() + " " + p.getValue1()); } }',
    fail: 'public class Main { public static void main(String[] a) { throw new RuntimeException("boom"); } }',
  },
  go: {
    // Indented as SandboxFusion's tests send it (a Python triple-quoted string).
    echo: '\n    package main\n    import "fmt"\n    func main() {\n        var n int\n        fmt.Scan(&n)\n        fmt.Println("hello", n*2)\n    }\n    ',
    fail: 'package main\nfunc main() { panic("boom") }\n',
  },
  go_test: {
    echo: 'package main\nimport (\n  "fmt"\n  "testing"\n  "github.com/stretchr/testify/assert"\n)\nfunc TestHello(t *testing.T) {\n  fmt.Println("hello", 42)\n  assert.Equal(t, 42, 21*2)\n}\n',
    fail: 'package main\nimport (\n  "testing"\n  "github.com/stretchr/testify/assert"\n)\nfunc TestBoom(t *testing.T) {\n  assert.Equal(t, "boom", "bang")\n}\n',
  },
  junit: {
    echo: 'import org.junit.jupiter.api.Test;\nimport static org.junit.jupiter.api.Assertions.*;\npublic class Twice {\n  static int twice(int n) { return n * 2; }\n}\nclass TwiceTest {\n  @Test\n  void doubles() { assertEquals(42, Twice.twice(21)); }\n}\n',
    fail: 'import org.junit.jupiter.api.Test;\nimport static org.junit.jupiter.api.Assertions.*;\nclass BoomTest {\n  @Test\n  void boom() { assertEquals("boom", "bang"); }\n}\n',
  },
  jest: {
    // As SandboxFusion's jest runner takes it: a TypeScript test file, @jest/globals and the common modules.
    echo: 'import { expect, test } from "@jest/globals";\nimport _ from "lodash";\nconst twice = (n: number): number => n * 2;\ntest("doubles", () => {\n  console.log("hello", twice(21));\n  expect(_.sum([twice(21)])).toBe(42);\n});\n',
    fail: 'import { expect, test } from "@jest/globals";\ntest("boom", () => {\n  expect("boom").toBe("bang");\n});\n',
  },
  D_ut: {
    // Unit tests run before main, as dmd's -unittest runs them; the program brings its main, as SandboxFusion's do.
    echo: 'import std.stdio;\nint twice(int n) { return n * 2; }\nunittest {\n  writeln("hello ", twice(21));\n  assert(twice(21) == 42);\n}\nvoid main() {}\n',
    fail: 'unittest { assert(false, "boom"); }\nvoid main() {}\n',
  },
  sql: {
    echo: "CREATE TABLE t (n INTEGER);\nINSERT INTO t VALUES (21);\nSELECT 'hello ' || (n * 2) FROM t;",
    fail: 'CREATE TABLE t (n INTEGER);\nSELECT boom FROM t;',
  },
  rust: {
    echo: 'use std::io::Read;\nfn main() { let mut s = String::new(); std::io::stdin().read_to_string(&mut s).unwrap(); let n: i32 = s.trim().parse().unwrap(); println!("hello {}", n * 2); }',
    fail: 'fn main() { panic!("boom"); }',
  },
  php: {
    // Leading whitespace before the tag, as SandboxFusion's tests send it.
    echo: '\n    <?php\n    $n = intval(readline());\n    echo "hello " . ($n * 2) . "\\n";\n    ?>\n    ',
    fail: '<?php trigger_error("boom", E_USER_ERROR);',
  },
  lua: {
    echo: 'local n = io.read("n")\nprint("hello " .. math.floor(n * 2))',
    // luaunit, which SandboxFusion's lua tests require, comes with the lua profile.
    fail: 'local lu = require("luaunit")\nlu.assertEquals("boom", "bang")',
  },
  R: {
    echo: 'n <- as.integer(readLines(file("stdin"), n = 1))\ncat("hello", n * 2, "\\n")',
    fail: 'stop("boom")',
  },
  perl: { echo: 'my $n = <STDIN>; print "hello ", $n * 2, "\\n";', fail: 'die "boom\\n";' },
  ruby: { echo: 'n = gets.to_i\nputs "hello #{n * 2}"', fail: 'raise "boom"' },
  racket: {
    echo: '#lang racket\n(define n (read))\n(printf "hello ~a\\n" (* n 2))',
    fail: '#lang racket\n(error "boom")',
  },
  scala: {
    echo: 'object Hello {\n  def main(args: Array[String]): Unit = {\n    val n = scala.io.StdIn.readLine().trim.toInt\n    println("hello " + n * 2)\n  }\n}',
    fail: 'object Boom {\n  def main(args: Array[String]): Unit = throw new RuntimeException("boom")\n}',
  },
  kotlin_script: {
    echo: 'val n = readLine()!!.trim().toInt()\nprintln("hello " + n * 2)',
    fail: 'throw RuntimeException("boom")',
  },
  verilog: {
    echo: 'module tb;\n  integer n;\n  initial begin\n    n = 21;\n    $display("hello %0d", n * 2);\n    $finish;\n  end\nendmodule',
    fail: 'module tb;\n  initial begin\n    $display("boom");\n    $fatal(1, "boom");\n  end\nendmodule',
  },
};

/** Testing frameworks keep a passing test's output to themselves and print their own report instead. */
const REPORTS: Partial<Record<Language, RegExp>> = {
  pytest: /1 passed/,
  go_test: /^ok\s/m,
  junit: /1 tests successful/,
};

describe('language conformance (SandboxFusion behaviour, every language of the `all` profile)', () => {
  it.each(Object.entries(CASES) as [Language, Conformance][])(
    '%s: reads stdin and prints, and fails with its message, or says how to install it',
    async (language, conformance) => {
      const status = (await executor().languages()).find((entry) => entry.language === language);
      const echo = await executor().runCode({
        code: conformance.echo,
        language,
        stdin: '21\n',
        compile_timeout: 60,
        run_timeout: 30,
      });
      if (!status?.available) {
        expect(echo.response).toMatchObject({ status: 'SandboxError', run_result: null });
        expect(echo.response.message).toContain(`npm run setup -- --languages ${language}`);
        return;
      }
      const output = echo.response.run_result?.stdout ?? '';
      expect(echo.response.status, JSON.stringify(echo.response)).toBe('Success');
      const report = REPORTS[language];
      if (report) expect(output).toMatch(report);
      else expect(output).toContain('hello 42');

      const fail = await executor().runCode({
        code: conformance.fail,
        language,
        compile_timeout: 60,
        run_timeout: 30,
      });
      expect(fail.response.status, JSON.stringify(fail.response)).toBe('Failed');
      const step = fail.response.run_result ?? fail.response.compile_result;
      expect(step?.status).toBe('Finished');
      expect(step?.return_code).not.toBe(0);
      expect(`${step?.stdout ?? ''}${step?.stderr ?? ''}`).toMatch(/boom|bang/);
    },
    // Two JVM compiles and starts (scala, kotlin_script, junit) took up to 33 s on a busy 2-core machine.
    180_000,
  );
});
