import type { RunCodeResponse } from '@fusebox/sandbox-client/protocol';
import { storedTask } from '@fusebox/tasks';
import { describe, expect, it } from 'vitest';
import { runSplitTest, splitTest } from '../src/run-split-test';
import type { SessionSandbox } from '../src/session-sandbox';

// Two ways a split test's expected values reached the model's process (issue 15, item 5). The end-to-end probes,
// against real sandboxes, are in apps/api/test/hostile/split-verdict-forgery.test.ts ("a comment of the test").

/** The answer every test below names in a comment: a split program that holds it has leaked it. */
const ANSWER = '987654321';

const COMMENTED: [language: string, test: string][] = [
  [
    'nodejs',
    `const assert = require('node:assert'); /* ${ANSWER} */\nfunction test() {\n  let candidate = f; // ${ANSWER}\n  // assert.deepEqual(candidate(7), ${ANSWER});\n  assert.deepEqual(candidate('// kept'), ${ANSWER});\n}\ntest();\n// ${ANSWER}`,
  ],
  [
    'cpp',
    `}\nint main() {\n    auto candidate = f;\n    // expects ${ANSWER}\n    assert(candidate(7 /* ${ANSWER} */) == ${ANSWER});\n}\n`,
  ],
  [
    'java',
    `    }\n    public static void main(String[] args) {\n    /* expects\n       ${ANSWER} */\n    assert(Problem.f("// kept") == ${ANSWER});\n    }\n\n}\n`,
  ],
  [
    'rust',
    `\nfn main() {\n    let candidate = f;\n    // expects ${ANSWER}\n    assert_eq!(candidate(7), ${ANSWER}); // ${ANSWER}\n}\n`,
  ],
  [
    'ruby',
    `require 'test/unit'\nclass TestHumanEval < Test::Unit::TestCase\n  def test_f\n    candidate = method(:f)\n    # assert_equal(${ANSWER}, candidate.call(7))\n    assert_equal(${ANSWER}, candidate.call(7))\n  end\nend\n`,
  ],
  [
    'lua',
    `lu = require('luaunit')\nfunction test_humaneval()\nlocal candidate = f\n  -- expects ${ANSWER}\n    lu.assertEquals(candidate(7), ${ANSWER})\nend\nos.exit(lu.LuaUnit.run())\n`,
  ],
  [
    'R',
    `test_humaneval <- function() {\ncandidate <- f\n    # ${ANSWER}\n    if(!identical(candidate(7), ${ANSWER})){quit('no', 1)}\n}\ntest_humaneval()\n`,
  ],
  [
    'perl',
    `use Test::Deep;\n\nsub testhumaneval {\n    my $candidate = \\&f;\n    # expects ${ANSWER}\n        if(eq_deeply($candidate->(7),${ANSWER})) {\n        print "ok!" }else{\n        exit 1;\n        }\n}\n\ntesthumaneval();\n`,
  ],
  [
    'bash',
    `}\n\ncandidate() {\n    f "$@"\n}\n\nset -e\nrun_test() {\n    # expects ${ANSWER}\n    [[ $(candidate "7") = "${ANSWER}" ]]\n}\n\nrun_test\n`,
  ],
];

describe('what of a split test reaches the model’s program', () => {
  it.each(COMMENTED)('%s: none of the test’s comments, which may name its answers', (language, test) => {
    const split = splitTest(language, test);
    expect(split, 'split').toBeDefined();
    const solution = `/* the model's own ${ANSWER} */`;
    const program = split?.program(solution) ?? '';
    // The detection: the model's own comment is still there, so the check below could see one.
    expect(program).toContain(solution);
    expect(program.replace(solution, '')).not.toContain(ANSWER);
    // Comments are blanked, not removed: the harness keeps the test's line numbers.
    expect(program.replace(solution, '').split('\n').length).toBeGreaterThanOrEqual(test.split('\n').length);
    // A string that looks like a comment is the test's code, and stays.
    if (test.includes("'// kept'")) expect(program).toContain("'// kept'");
    if (test.includes('"// kept"')) expect(program).toContain('"// kept"');
  });
});

const RUBY_TEST = `require 'test/unit'\nclass TestHumanEval < Test::Unit::TestCase\n  def test_f\n    candidate = method(:f)\n    assert_equal(${ANSWER}, candidate.call(7))\n  end\nend\n`;

/** A sandbox that answers the expected program with `expected`, and records every program it was given. */
function sandboxAnswering(expected: RunCodeResponse) {
  const programs: string[] = [];
  const sandbox = {
    runProgram: (request: { code: string }) => {
      programs.push(request.code);
      return Promise.resolve({ response: expected, row: {} });
    },
  } as unknown as SessionSandbox;
  return { sandbox, programs };
}

const task = (name: string) =>
  storedTask({
    id: name,
    name,
    language: 'ruby',
    sessionMode: 'fresh',
    setupFiles: {},
    tests: [{ name: 'f', kind: 'assert', code: RUBY_TEST }],
    failToPass: ['f'],
    passToPass: [],
    metadata: {},
  });

const step = (status: 'Finished' | 'TimeLimitExceeded', returnCode: number | null, stderr = '') => ({
  status,
  execution_time: 1,
  return_code: returnCode,
  stdout: '',
  stderr,
});

describe('a split test whose expected program did not run to its end', () => {
  // The marker path runs the whole test, its expected literals included, in the model's process: a load the
  // model's own runs can make (a timeout, a lost permit) must not send a split test there.
  it.each([
    [
      'a sandbox error (a lost permit)',
      {
        status: 'SandboxError',
        message: 'permit lost',
        compile_result: null,
        run_result: null,
        executor_pod_name: null,
        files: {},
      },
    ],
    [
      'a run timeout',
      {
        status: 'Failed',
        message: '',
        compile_result: null,
        run_result: step('TimeLimitExceeded', null),
        executor_pod_name: null,
        files: {},
      },
    ],
    [
      'a kill (memory limit)',
      {
        status: 'Failed',
        message: '',
        compile_result: null,
        run_result: step('Finished', 137),
        executor_pod_name: null,
        files: {},
      },
    ],
    [
      // As when other runs hold the whole process budget: a fork fails, and so does the program.
      'a crash that says nothing of a literal',
      {
        status: 'Failed',
        message: '',
        compile_result: null,
        run_result: step(
          'Finished',
          1,
          'ruby: failed to create timer thread (Resource temporarily unavailable)',
        ),
        executor_pod_name: null,
        files: {},
      },
    ],
    [
      'a compile that could not fork',
      {
        status: 'Failed',
        message: '',
        compile_result: step(
          'Finished',
          1,
          'error: could not exec the linker `cc`: Resource temporarily unavailable',
        ),
        run_result: null,
        executor_pod_name: null,
        files: {},
      },
    ],
    [
      // go test when a compile's thread was refused (go 1.19 under a full pids.max): errno=11, no strerror text.
      'a Go compile whose thread was refused',
      {
        status: 'Failed',
        message: '',
        compile_result: null,
        run_result: step(
          'Finished',
          1,
          '# x [x.test]\nruntime: failed to create new OS thread (have 3 already; errno=11)\nfatal error: newosproc\nFAIL\tx [build failed]',
        ),
        executor_pod_name: null,
        files: {},
      },
    ],
    [
      // Go spells the errno in lower case.
      'a Go compile that could not fork',
      {
        status: 'Failed',
        message: '',
        compile_result: null,
        run_result: step(
          'Finished',
          1,
          '# x [x.test]\nfork/exec /usr/lib/go-1.19/pkg/tool/linux_amd64/link: resource temporarily unavailable\nFAIL\tx [build failed]',
        ),
        executor_pod_name: null,
        files: {},
      },
    ],
    [
      // HotSpot names the errno of a refused thread.
      'a Java compile whose thread was refused',
      {
        status: 'Failed',
        message: '',
        compile_result: step(
          'Finished',
          1,
          '[0.011s][warning][os,thread] Failed to start thread "GC Thread#0" - pthread_create failed (EAGAIN) for attributes: stacksize: 1024k.\nError occurred during initialization of VM',
        ),
        run_result: null,
        executor_pod_name: null,
        files: {},
      },
    ],
    [
      // Other runs filling the memory budget: the kernel's OOM killer may pick the expected program's compiler.
      'a Go compile the OOM killer ended',
      {
        status: 'Failed',
        message: '',
        compile_result: null,
        run_result: step(
          'Finished',
          1,
          '/usr/lib/go-1.19/pkg/tool/linux_amd64/link: signal: killed\nFAIL\tx [build failed]',
        ),
        executor_pod_name: null,
        files: {},
      },
    ],
    [
      'a C++ compile the OOM killer ended',
      {
        status: 'Failed',
        message: '',
        compile_result: step(
          'Finished',
          1,
          'g++: fatal error: Killed signal terminated program cc1plus\ncompilation terminated.',
        ),
        run_result: null,
        executor_pod_name: null,
        files: {},
      },
    ],
    [
      'a Rust link the OOM killer ended',
      {
        status: 'Failed',
        message: '',
        compile_result: step('Finished', 1, 'error: linking with `cc` failed: signal: 9 (SIGKILL)'),
        run_result: null,
        executor_pod_name: null,
        files: {},
      },
    ],
  ] as const)('%s fails the test, unjudged, and runs nothing of the model’s', async (_name, response) => {
    const split = splitTest('ruby', RUBY_TEST);
    if (split === undefined) throw new Error('not split');
    // Each case its own program text, so that no cached expected value answers for it.
    const own = { ...split, expectedProgram: `${split.expectedProgram}\n# ${_name}` };
    const { sandbox, programs } = sandboxAnswering(response);
    const run = await runSplitTest(sandbox, task('ruby-unjudged'), 'def f(n) = 0', own);
    expect(run?.verdict).toMatchObject({ passed: false, status: 'sandbox_error' });
    expect(programs).toHaveLength(1);
  });

  it.each([
    [
      'its serialiser',
      null,
      step('Finished', 1, 'report.rb: fusebox: no report for a Rational (ArgumentError)'),
    ],
    ['its compiler', step('Finished', 1, 'error[E0282]: type annotations needed'), null],
  ] as const)('a refusal of %s still sends the test to the marker path', async (name, compile, run) => {
    const split = splitTest('ruby', RUBY_TEST);
    if (split === undefined) throw new Error('not split');
    const own = { ...split, expectedProgram: `${split.expectedProgram}\n# refused by ${name}` };
    const { sandbox } = sandboxAnswering({
      status: 'Failed',
      message: '',
      compile_result: compile,
      run_result: run,
      executor_pod_name: null,
      files: {},
    });
    expect(await runSplitTest(sandbox, task('ruby-refused'), 'def f(n) = 0', own)).toBeUndefined();
  });
});
