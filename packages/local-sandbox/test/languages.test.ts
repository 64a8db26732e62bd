import { execFileSync } from 'node:child_process';
import { LANGUAGES } from '@fusebox/sandbox-client/protocol';
import { describe, expect, it } from 'vitest';
import { useExecutor } from './use-executor';

const { executor } = useExecutor();

/** Whether this machine has a toolchain, asked the way the executor finds it (on this process's PATH). */
function installed(command: string): boolean {
  try {
    execFileSync(command, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const hello = (language: string, code: string, runTimeoutS?: number) =>
  executor().runCode({
    code,
    language: language as 'python',
    ...(runTimeoutS === undefined ? {} : { run_timeout: runTimeoutS }),
  });

describe('languages', () => {
  it('runs python on Debian /usr/bin/python3, with the code file in the working directory', async () => {
    const { response } = await hello(
      'python',
      'import os, sys\nprint(sys.executable, sys.version_info[:2] >= (3, 11))\nprint(os.path.dirname(os.path.abspath(__file__)) == os.getcwd())',
    );
    expect(response.status).toBe('Success');
    expect(response.compile_result).toBeNull();
    expect(response.run_result?.stdout).toBe('/usr/bin/python3 True\nTrue\n');
  });

  it("imports the default profile's math and data libraries inside the sandbox, and uses them", async () => {
    const { response } = await hello(
      'python',
      [
        'import io, numpy, scipy.optimize, sympy, pandas, sklearn.linear_model',
        'import matplotlib',
        'matplotlib.use("Agg")',
        'import matplotlib.pyplot as plt',
        'x = sympy.symbols("x")',
        'print(sympy.solve(x**2 - 4, x))',
        'print(round(scipy.optimize.brentq(lambda v: v**3 - 27, 0, 10), 6))',
        'print(pandas.DataFrame({"a": [1, 2, 3]})["a"].sum())',
        'model = sklearn.linear_model.LinearRegression().fit(numpy.array([[0], [1], [2]]), [1, 3, 5])',
        'print(round(float(model.coef_[0]), 6))',
        'plt.plot([1, 2, 3]); buffer = io.BytesIO(); plt.savefig(buffer, format="png")',
        'print(buffer.getvalue()[:4] == b"\\x89PNG")',
      ].join('\n'),
      // Importing all six cold took over the default 10 s on a loaded CI machine.
      45,
    );
    expect(response.run_result?.stderr).toBe('');
    expect(response.run_result?.stdout).toBe('[-2, 2]\n3.0\n6\n2.0\nTrue\n');
  });

  it('runs bash, nodejs and pytest', async () => {
    const bash = await hello('bash', 'echo "$((6 * 7))"');
    expect(bash.response.run_result?.stdout).toBe('42\n');
    const node = await hello('nodejs', 'console.log([1, 2, 3].map((x) => x * 2).join(","))');
    expect(node.response.run_result?.stdout).toBe('2,4,6\n');
    const pytest = await hello(
      'pytest',
      'def test_ok():\n    assert 1 + 1 == 2\n\ndef test_bad():\n    assert 1 == 2\n',
    );
    expect(pytest.response.status).toBe('Failed');
    expect(pytest.response.run_result?.return_code).toBe(1);
    expect(pytest.response.run_result?.stdout).toMatch(/1 failed, 1 passed/);
  });

  it("links the profile's npm packages into the working directory, for require and import alike", async () => {
    const node = await hello(
      'nodejs',
      'const _ = require("lodash");\nconst md5 = require("js-md5");\nconsole.log(_.chunk([1, 2, 3], 2).length, md5("abc"));',
    );
    expect(node.response.run_result?.stdout).toBe('2 900150983cd24fb0d6963f7d28e17f72\n');
    const ts = await hello(
      'typescript',
      'import _ from "lodash";\nimport { JSDOM } from "jsdom";\nconst dom = new JSDOM("<p>hi</p>");\nconsole.log(_.sum([1, 2]), dom.window.document.querySelector("p")?.textContent);',
    );
    expect(ts.response.run_result?.stderr).toBe('');
    expect(ts.response.run_result?.stdout).toBe('3 hi\n');
  });

  it('runs typescript transpiled on the host, with stack traces that name the .ts file and line', async () => {
    const { response } = await hello(
      'typescript',
      'interface P { x: number }\nconst p: P = { x: 21 };\nconsole.log(p.x * 2);\nthrow new Error("boom");\n',
    );
    expect(response.status).toBe('Failed');
    expect(response.run_result?.stdout).toBe('42\n');
    expect(response.run_result?.stderr).toMatch(/\/tmp\/tmp\w{8}\/tmp\w{8}\.ts:4/);
    expect(response.run_result?.stderr).toContain('Error: boom');
  });

  it('runs typescript with top-level await as an ES module', async () => {
    const { response } = await hello(
      'typescript',
      'const v: number = await Promise.resolve(7);\nconsole.log(v);\n',
    );
    expect(response.run_result?.stdout).toBe('7\n');
    expect(response.status).toBe('Success');
  });

  it('reports a typescript syntax error as a failed run, like tsx', async () => {
    const { response } = await hello('typescript', 'const x: number = ;\n');
    expect(response.status).toBe('Failed');
    expect(response.run_result?.return_code).toBe(1);
    expect(response.run_result?.stderr).toMatch(/\.ts:1:\d+: ERROR: /);
  });

  it('compiles and runs C++17 in two steps, each with its own result', async () => {
    const { response } = await hello(
      'cpp',
      '#include <iostream>\n#include <optional>\nint main() { std::optional<int> v = 5; std::cout << *v << std::endl; }\n',
    );
    expect(response.status).toBe('Success');
    expect(response.compile_result).toMatchObject({ status: 'Finished', return_code: 0 });
    expect(response.run_result).toMatchObject({ status: 'Finished', return_code: 0, stdout: '5\n' });
  });

  it('stops at a failed compile: run_result is null and the compiler names the absolute source path', async () => {
    const { response } = await hello('cpp', 'int main() { return nope; }\n');
    expect(response.status).toBe('Failed');
    expect(response.compile_result?.return_code).not.toBe(0);
    expect(response.compile_result?.stderr).toMatch(/\/tmp\/tmp\w{8}\/tmp\w{8}\.cpp:1:\d+: error/);
    expect(response.run_result).toBeNull();
  });

  it.each([
    [
      'rust',
      'rustc',
      'fn main() { let v: Vec<u32> = (1..=4).collect(); println!("{}", v.iter().sum::<u32>()); }',
      '10\n',
    ],
    [
      'java',
      'javac',
      'public class Main { public static void main(String[] args) { assert args.length == 0; System.out.println("java " + (40 + 2)); } }',
      'java 42\n',
    ],
  ])(
    'runs %s where its toolchain is installed, and answers SandboxError naming the setup where it is not',
    async (language, compiler, code, stdout) => {
      const { response } = await hello(language, code);
      if (installed(compiler)) {
        expect(response.compile_result?.return_code).toBe(0);
        expect(response.run_result?.stdout).toBe(stdout);
      } else {
        expect(response.status).toBe('SandboxError');
        expect(response.message).toContain(`npm run setup -- --languages ${language}`);
      }
    },
  );

  it('runs php as SandboxFusion does: leading whitespace dropped, the opening tag added when missing', async () => {
    const php = (await executor().languages()).find((status) => status.language === 'php');
    const indented = await hello('php', '\n    <?php\n    echo "a";\n    ?>\n');
    const bare = await hello('php', 'echo "b";');
    if (!php?.available) {
      expect(indented.response.status).toBe('SandboxError');
      return;
    }
    expect(indented.response.run_result?.stdout).toBe('a');
    expect(bare.response.run_result?.stdout).toBe('b');
  });

  it('runs sql in an in-memory sqlite3 database, and fails at the first bad statement', async () => {
    const ok = await hello(
      'sql',
      'CREATE TABLE t (x INTEGER);\nINSERT INTO t VALUES (1), (2), (3);\nSELECT sum(x) FROM t;\n',
    );
    expect(ok.response).toMatchObject({ status: 'Success', compile_result: null });
    expect(ok.response.run_result?.stdout).toBe('6\n');
    const bad = await hello('sql', 'SELECT 1;\nSELECT nope FROM missing;\nSELECT 2;\n');
    expect(bad.response.status).toBe('Failed');
    expect(bad.response.run_result?.stdout).toBe('1\n');
    expect(bad.response.run_result?.stderr).toContain('no such table: missing');
  });

  it("links C++ against OpenSSL with SandboxFusion's flags, so MD5() resolves", async () => {
    const { response } = await hello(
      'cpp',
      [
        '#include <openssl/md5.h>',
        '#include <cstdio>',
        '#include <cstring>',
        'int main() {',
        '  unsigned char d[MD5_DIGEST_LENGTH]; const char* s = "abc";',
        '  MD5(reinterpret_cast<const unsigned char*>(s), strlen(s), d);',
        '  for (unsigned char c : d) printf("%02x", c);',
        '  printf("\\n");',
        '}',
      ].join('\n'),
    );
    expect(response.compile_result?.stderr).not.toContain('undefined reference');
    expect(response.run_result?.stdout).toBe('900150983cd24fb0d6963f7d28e17f72\n');
  });

  it('lists every SandboxFusion language once, with a version or a reason', async () => {
    const statuses = await executor().languages();
    expect(statuses.map((status) => status.language)).toEqual([...LANGUAGES]);
    for (const status of statuses) {
      if (status.available) expect(status.reason).toBeNull();
      else expect(status.reason).toMatch(new RegExp(`^${status.language} is not (available|installed)`));
    }
    const python = statuses.find((status) => status.language === 'python');
    expect(python?.available).toBe(true);
    expect(python?.version).toMatch(/^Python 3\.\d+\.\d+$/);
    expect(python?.libraries).toContain('numpy');
  });

  it.each(['julia', 'swift', 'csharp', 'lean', 'cuda', 'python_gpu'])(
    'lists %s as unavailable, saying why, and answers its runs with that reason as a SandboxError',
    async (language) => {
      const status = (await executor().languages()).find((entry) => entry.language === language);
      expect(status).toMatchObject({ available: false, version: null });
      expect(status?.reason).toMatch(new RegExp(`^${language} is not available on Fusebox: .+`));
      const { response } = await hello(language, 'x');
      expect(response).toMatchObject({
        status: 'SandboxError',
        message: status?.reason,
        compile_result: null,
        run_result: null,
      });
    },
  );

  it('answers every language it lists as unavailable with a SandboxError, never a fake run', async () => {
    const unavailable = (await executor().languages()).filter((status) => !status.available);
    for (const status of unavailable) {
      const { response } = await hello(status.language, 'x');
      expect(response).toMatchObject({ status: 'SandboxError', message: status.reason, run_result: null });
    }
  });
});
