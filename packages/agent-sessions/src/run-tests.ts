import { runCodeRequestSchema, type RunCodeResponse } from '@fusebox/sandbox-client/protocol';
import { summarize } from '@fusebox/sandbox-client';
import { describeRun, truncateToolResponse } from '@fusebox/tools';
import type { StoredTask, TaskTest, TestCounts } from '@fusebox/tasks';
import type { TestOutcome } from './reward-detail';
import { completed, withCompletionMarker, withoutMarker } from './completion-marker';
import { runSplitTest, splitTest } from './run-split-test';
import { stateCells } from './session-cells';
import type { ExecutionRow, SessionSandbox } from './session-sandbox';
import {
  type TestSubject,
  type TrustedSubject,
  type TrustedVerdict,
  judgedByTrustedRunner,
  trustedSubject,
  trustedTestJob,
  trustedVerdict,
} from './trusted-test';

/** Where AutoEval's test code wants the solution; without it the test code is appended. */
const INSERT_MARKER = '#<INSERT>';
/**
 * Characters of a test's output kept in its outcome: half from its start, where a crashed toolchain says why (a
 * Go runtime's fatal error heads a dump of every goroutine), and half from its end, where assertion errors are.
 */
const DETAIL_CHARS = 2000;

export interface TestRun {
  outcomes: TestOutcome[];
  counts: TestCounts;
  rows: ExecutionRow[];
  /** What the sandbox answered for each test, in the order of `outcomes`. */
  responses: RunCodeResponse[];
}

/**
 * Runs every test of a task against a session's solution, each in its own sandbox and all at once (each through
 * the global limiter). A fresh session's solution is its latest action's code; a stateful session's is the
 * state its actions built, so its tests run after a replay of those actions' cells.
 *
 * Python assert tests, and pytest ones that need nothing of pytest's own, run in the trusted runner
 * (trusted-test.ts), whose verdict the model's code cannot forge; io tests are judged here, on the exit status the
 * sandbox's driver reported and the output the host read. Other assert tests (the model's code and the test, in
 * one process) pass when the program exits 0 and prints its completion marker (completion-marker.ts), which only
 * a run of the test to its end prints: see docs/sessions.md for what that leaves open.
 */
export async function runTests(
  sandbox: SessionSandbox,
  task: StoredTask,
  actions: readonly { code: string | null; status: string }[],
): Promise<TestRun> {
  const subject: TestSubject =
    task.sessionMode === 'stateful'
      ? { mode: 'cells', cells: stateCells(actions) }
      : { mode: 'program', solution: latestCode(actions) };
  let trusted: TrustedSubject | undefined;
  const runs = await Promise.all(
    task.tests.map(async (test) => {
      if (test.kind === 'io') return runProgramTest(sandbox, task, latestCode(actions), test);
      if (judgedByTrustedRunner(task.language, test.code))
        return runTrustedTest(sandbox, task, (trusted ??= trustedSubject(subject)), test);
      const split = splitTest(task.language, test.code);
      const judged = split && (await runSplitTest(sandbox, task, latestCode(actions), split));
      if (judged === undefined) return runProgramTest(sandbox, task, latestCode(actions), test);
      return { ...judgedOutcome(task, test, judged.response, judged.verdict), rows: judged.rows };
    }),
  );
  const outcomes = runs.map(({ outcome }) => outcome);
  const passed = new Set(outcomes.filter((outcome) => outcome.passed).map((outcome) => outcome.name));
  return {
    outcomes,
    counts: {
      f2pCount: task.failToPass.filter((name) => passed.has(name)).length,
      f2pTotal: task.failToPass.length,
      p2pCount: task.passToPass.filter((name) => passed.has(name)).length,
      p2pTotal: task.passToPass.length,
    },
    rows: runs.flatMap(({ rows }) => rows),
    responses: runs.map(({ response }) => response),
  };
}

async function runProgramTest(sandbox: SessionSandbox, task: StoredTask, solution: string, test: TaskTest) {
  const { runTimeoutS, memoryLimitMB } = task.settings;
  const program = test.kind === 'assert' ? withSolution(test.code, solution) : solution;
  const marked =
    test.kind === 'assert' ? withCompletionMarker(task.language, program, task.setupFiles) : undefined;
  const { response, row } = await sandbox.runProgram(
    runCodeRequestSchema.parse({
      code: marked?.code ?? program,
      language: task.language,
      stdin: test.kind === 'io' ? test.stdin : null,
      compile_timeout: runTimeoutS,
      run_timeout: runTimeoutS,
      memory_limit_MB: memoryLimitMB,
      files: marked?.files ?? task.setupFiles,
    }),
  );
  if (test.kind === 'io')
    return { outcome: outcome(task, test, response, test.expectedStdout), rows: [row], response };
  // An assert test judged in the model's own process: whatever it says, it could have forged (docs/sessions.md).
  if (marked === undefined)
    return { outcome: { ...outcome(task, test, response), trusted: false as const }, rows: [row], response };
  const stdout = response.run_result?.stdout ?? '';
  const unmarked = {
    ...response,
    run_result: response.run_result && {
      ...response.run_result,
      stdout: withoutMarker(stdout, marked.marker),
    },
  };
  const ran = { ...outcome(task, test, unmarked), trusted: false as const };
  // Exit 0 without the marker: the process ended before the test's own code did.
  return {
    outcome:
      ran.passed && !completed(stdout, marked.marker)
        ? {
            ...ran,
            passed: false,
            status: 'runtime_error',
            detail: `${ran.detail}\n(the test did not run to its end: the program exited before it finished)`,
          }
        : ran,
    rows: [row],
    response: unmarked,
  };
}

async function runTrustedTest(
  sandbox: SessionSandbox,
  task: StoredTask,
  subject: TrustedSubject,
  test: Extract<TaskTest, { kind: 'assert' }>,
) {
  const job = trustedTestJob(task, test.code, subject);
  const { response, row } = await sandbox.runProgram(job.request);
  return { ...judgedOutcome(task, test, response, trustedVerdict(response, job.key)), rows: [row] };
}

/**
 * A test's outcome from a verdict the host computed (the trusted runner's, or a split test's comparison). Without
 * one, a timeout, a crash or a memory limit says so; a run that ended well without a verdict is broken.
 */
function judgedOutcome(
  task: StoredTask,
  test: TaskTest,
  response: RunCodeResponse,
  verdict: TrustedVerdict | undefined,
): { outcome: TestOutcome; response: RunCodeResponse } {
  if (verdict === undefined) {
    const ran = outcome(task, test, response);
    return {
      outcome:
        ran.status === 'success'
          ? { ...ran, passed: false, status: 'sandbox_error', detail: 'the test runner gave no verdict' }
          : { ...ran, passed: false },
      response,
    };
  }
  return {
    outcome: {
      name: test.name,
      group: group(task, test),
      passed: verdict.passed,
      status: verdict.status,
      detail: truncateToolResponse(verdict.detail, DETAIL_CHARS, 'middle').text,
    },
    response,
  };
}

function outcome(
  task: StoredTask,
  test: TaskTest,
  response: RunCodeResponse,
  expectedOutput?: string,
): TestOutcome {
  const { category } = summarize(response, expectedOutput === undefined ? {} : { expectedOutput });
  const { text } = describeRun(response, {
    runTimeout: task.settings.runTimeoutS,
    memoryLimitMb: task.settings.memoryLimitMB,
  });
  return {
    name: test.name,
    group: group(task, test),
    passed: category === 'success',
    status: category,
    detail: truncateToolResponse(text, DETAIL_CHARS, 'middle').text,
  };
}

function group(task: StoredTask, test: TaskTest): 'f2p' | 'p2p' {
  return task.passToPass.includes(test.name) ? 'p2p' : 'f2p';
}

/** AutoEval's rule: the solution goes at the marker if the test has one, else the test follows it. */
function withSolution(testCode: string, solution: string): string {
  return testCode.includes(INSERT_MARKER)
    ? testCode.replace(INSERT_MARKER, () => solution)
    : `${solution}\n\n${testCode}`;
}

/** A fresh session's solution: the code of its latest action ('' before any). */
function latestCode(actions: readonly { code: string | null }[]): string {
  return actions.findLast((action) => action.code !== null)?.code ?? '';
}
