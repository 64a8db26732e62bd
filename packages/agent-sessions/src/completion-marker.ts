import { randomBytes } from 'node:crypto';

/**
 * A completion marker for assert tests the trusted runner cannot judge (other languages, pytest tests that use
 * pytest's own features). Such a test runs in one process with the model's code and used to pass when that
 * process exited 0, so `exit(0)` (`process.exit(0)`, `System.exit(0)`, `os._exit(0)`, …) before the test's
 * checks passed every test. The program now prints a fresh random marker line only when the test's own code
 * ran to its end (its `main` returned, its script's last statement ran, pytest finished with every test passed),
 * and the test passes only with exit status 0 and that line.
 *
 * This stops a process that ends early; it is not unforgeable. The model's code shares the process and the
 * language with the test, so it can also read the marker (from the program's source, its binary or its memory)
 * and print it, or disable the checks themselves (redefine C++'s `assert`, patch Node's `assert` module, turn
 * Java assertions off, patch pytest) and let the test run to its end: no scheme inside one process can tell the
 * test's code from the model's. See docs/sessions.md.
 */
export interface MarkedTest {
  /** The program to run: the model's code and the test, with what prints the marker. */
  code: string;
  /** The task's files (base64), with what the marker needs beside the program (pytest's hook) added. */
  files: Record<string, string>;
  marker: string;
}

/** Where the marker goes in a language's program; undefined where it has no place that only a full run reaches. */
type Placement = (program: string, marker: string) => Omit<MarkedTest, 'marker'> | undefined;

/**
 * Appended after the test: a script's last statement runs only if nothing before it ended the process.
 * `statement` gets the marker line as a double-quoted string literal with `\n` escapes, which every language
 * here reads the same way (the marker itself is letters, digits and dashes).
 */
const appended =
  (statement: (literal: string) => string): Placement =>
  (program, marker) => ({ code: `${program}\n${statement(JSON.stringify(`\n${marker}\n`))}\n`, files: {} });

/**
 * The last `main` in the program: the test's, since the model's code comes before it (or at its #<INSERT>). Each
 * pattern bounds its runs (a parameter list or a return type: 300 characters): unbounded, every
 * `main(` the model wrote without a `)` would be scanned to the end of the program, quadratic in their number.
 */
function lastMatch(program: string, pattern: RegExp): RegExpExecArray | undefined {
  let last: RegExpExecArray | undefined;
  for (const match of program.matchAll(new RegExp(pattern.source, 'g'))) last = match;
  return last;
}

/** `main` with text inserted before it and at the start of its body; undefined without a `main`. */
function intoMain(program: string, main: RegExp, before: string, atStart: string): string | undefined {
  const match = lastMatch(program, main);
  if (match === undefined) return undefined;
  const bodyStart = match.index + match[0].length;
  return `${program.slice(0, match.index)}${before}${program.slice(match.index, bodyStart)}${atStart}${program.slice(bodyStart)}`;
}

const NODE = appended((literal) => `;process.stdout.write(${literal});`);

const PLACEMENTS: Record<string, Placement> = {
  nodejs: NODE,
  typescript: NODE,
  bash: appended((literal) => `printf ${literal}`),
  perl: appended((literal) => `;print ${literal};`),
  // Test::Unit runs its tests when the script exits, after its last statement: the marker's statement runs them
  // first, and prints the marker only when they passed (`exit!(0)` or `exit(0)` in a test then never prints it).
  ruby: appended(
    (literal) =>
      `if defined?(Test::Unit::AutoRunner) && Test::Unit::AutoRunner.need_auto_run?\n  Test::Unit::AutoRunner.need_auto_run = false\n  fusebox_passed = Test::Unit::AutoRunner.run\n  $stdout.write(${literal}) if fusebox_passed\n  $stdout.flush\n  exit(fusebox_passed)\nend\n$stdout.write(${literal}); $stdout.flush`,
  ),
  R: appended((literal) => `cat(${literal})`),
  lua: appended((literal) => `io.write(${literal})`),
  // A local's destructor runs when main returns, by any `return`, and never on exit(), quick_exit() or abort().
  cpp: (program, marker) => {
    const code = intoMain(
      program,
      /\bint\s+main\s*\([^)]{0,300}\)\s*\{/,
      `#include <cstdio>\n#include <exception>\nstruct fusebox_completion_marker {\n  ~fusebox_completion_marker() {\n    if (std::uncaught_exceptions() == 0) { std::fflush(stdout); std::fputs(${JSON.stringify(`\n${marker}\n`)}, stdout); std::fflush(stdout); }\n  }\n};\n`,
      ' fusebox_completion_marker fusebox_completion_marker_; ',
    );
    return code === undefined ? undefined : { code, files: {} };
  },
  // Dropped when main returns; std::process::exit skips destructors, and a panic (exit 101) fails anyway.
  rust: (program, marker) => {
    const code = intoMain(
      program,
      /\bfn\s+main\s*\(\s*\)\s*(?:->[^{]{1,300})?\{/,
      '',
      ' let _fusebox_completion_marker = FuseboxCompletionMarker; ',
    );
    return code === undefined
      ? undefined
      : {
          code: `${code}\nstruct FuseboxCompletionMarker;\nimpl Drop for FuseboxCompletionMarker {\n    fn drop(&mut self) {\n        if !std::thread::panicking() {\n            use std::io::Write;\n            let mut out = std::io::stdout();\n            let _ = out.write_all(${JSON.stringify(`\n${marker}\n`)}.as_bytes());\n            let _ = out.flush();\n        }\n    }\n}\n`,
          files: {},
        };
  },
  // Deferred calls run when main returns; os.Exit skips them, and a panic (exit 2) fails anyway.
  go: (program, marker) => {
    const withMain = intoMain(
      program,
      /\bfunc\s+main\s*\(\s*\)\s*\{/,
      '',
      ' defer fuseboxCompletionMarker(); ',
    );
    const packageClause = /^package\s+main\s*$/m.exec(withMain ?? '');
    if (withMain === undefined || packageClause === null) return undefined;
    const end = packageClause.index + packageClause[0].length;
    return {
      code: `${withMain.slice(0, end)}\nimport fuseboxos "os"\n${withMain.slice(end)}\nfunc fuseboxCompletionMarker() { fuseboxos.Stdout.WriteString(${JSON.stringify(`\n${marker}\n`)}) }\n`,
      files: {},
    };
  },
  // The test's main becomes a method that the real main calls, then prints: System.exit never returns to it.
  java: (program, marker) => {
    const main =
      /\b(?:public\s+)?static\s+(?:public\s+)?void\s+main\s*\(([^)]{0,300})\)\s*(throws\s+[\w.]+(?:\s*,\s*[\w.]+)*)?\s*\{/;
    const match = lastMatch(program, main);
    if (match === undefined) return undefined;
    const parameters = match[1] ?? '';
    const argument = /(\w+)\s*(?:\[\s*\])?\s*$/.exec(parameters.trim())?.[1];
    if (argument === undefined) return undefined;
    const throws = match[2] ?? '';
    const replacement =
      `public static void main(${parameters}) ${throws} { fuseboxTestMain(${argument}); ` +
      `System.out.print(${JSON.stringify(`\n${marker}\n`)}); System.out.flush(); } ` +
      `static void fuseboxTestMain(${parameters}) ${throws} {`;
    return {
      code: `${program.slice(0, match.index)}${replacement}${program.slice(match.index + match[0].length)}`,
      files: {},
    };
  },
  // pytest's own hook, in a conftest.py beside the test: it runs once the session is over, and prints the
  // marker only if tests were collected and none failed. An exit during collection never reaches it.
  pytest: (program, marker) => ({
    code: program,
    files: {
      'conftest.py': Buffer.from(
        [
          'def pytest_sessionfinish(session, exitstatus):',
          '    if exitstatus == 0 and session.testscollected > 0 and session.testsfailed == 0:',
          `        session.config.pluginmanager.get_plugin("terminalreporter").write_line(${JSON.stringify(marker)})`,
          '',
        ].join('\n'),
      ).toString('base64'),
    },
  }),
};

/**
 * The test's program and files with its completion marker, or undefined for a language with no place for one
 * (the test then passes on exit 0 alone) or a program without one (a C++, Rust, Go or Java test with no `main`).
 * A file the marker needs that the task has too (its own conftest.py) gets the marker's part appended.
 */
export function withCompletionMarker(
  language: string,
  program: string,
  taskFiles: Record<string, string>,
): MarkedTest | undefined {
  const marker = `fusebox-test-complete-${randomBytes(16).toString('hex')}`;
  const placed = PLACEMENTS[language]?.(program, marker);
  if (placed === undefined) return undefined;
  const files = { ...taskFiles };
  for (const [name, content] of Object.entries(placed.files)) {
    const own = files[name];
    files[name] =
      own === undefined
        ? content
        : Buffer.concat([
            Buffer.from(own, 'base64'),
            Buffer.from('\n'),
            Buffer.from(content, 'base64'),
          ]).toString('base64');
  }
  return { code: placed.code, files, marker };
}

/** Whether the run's stdout holds the marker on a line of its own, once. */
export function completed(stdout: string, marker: string): boolean {
  return stdout.split('\n').filter((line) => line === marker).length === 1;
}

/** The stdout without the marker's line, as the test's own output reads. */
export function withoutMarker(stdout: string, marker: string): string {
  return stdout.replace(`\n${marker}\n`, '\n').replace(`${marker}\n`, '');
}
