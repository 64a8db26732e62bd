import {
  type RunCodeResponse,
  runCodeRequestSchema,
  runJupyterRequestSchema,
} from '@fusebox/sandbox-client/protocol';
import { summarize } from '@fusebox/sandbox-client/summarize';
import { describeRun } from '@fusebox/tools/describe-run';
import { truncateToolResponse } from '@fusebox/tools/truncate';
import type { ExecutionRow } from '../execution-recorder';
import type { TestCounts } from '../tasks/reward-rule';
import type { StoredTask } from '../tasks/stored-task';
import type { TaskTest } from '../tasks/task-test';
import { runProgram, runReplay } from './gated-runs';
import type { TestOutcome } from './reward-detail';
import { stateCells } from './session-cells';
import type { SessionSandbox } from './session-sandbox';

/** Where AutoEval's test code wants the solution; without it the test code is appended. */
const INSERT_MARKER = '#<INSERT>';
/** Characters of a test's output kept in its outcome: the end, where assertion errors are. */
const DETAIL_CHARS = 2000;

export interface TestRun {
  outcomes: TestOutcome[];
  counts: TestCounts;
  rows: ExecutionRow[];
}

/**
 * Runs every test of a task against a session's solution, each in its own sandbox and all at once (each through
 * the global limiter). A fresh session's solution is its latest action's code; a stateful session's is the
 * state its actions built, so its tests run after a replay of those actions' cells.
 */
export async function runTests(
  sandbox: SessionSandbox,
  task: StoredTask,
  actions: readonly { code: string | null; status: string }[],
): Promise<TestRun> {
  const runs = await Promise.all(
    task.tests.map((test) =>
      task.sessionMode === 'stateful'
        ? runStatefulTest(sandbox, task, stateCells(actions), test)
        : runProgramTest(sandbox, task, latestCode(actions), test),
    ),
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
    rows: runs.map(({ row }) => row),
  };
}

async function runProgramTest(sandbox: SessionSandbox, task: StoredTask, solution: string, test: TaskTest) {
  const { runTimeoutS, memoryLimitMB } = task.settings;
  const { response, row } = await runProgram(
    sandbox,
    runCodeRequestSchema.parse({
      code: test.kind === 'assert' ? withSolution(test.code, solution) : solution,
      language: task.language,
      stdin: test.kind === 'io' ? test.stdin : null,
      compile_timeout: runTimeoutS,
      run_timeout: runTimeoutS,
      memory_limit_MB: memoryLimitMB,
      files: task.setupFiles,
    }),
  );
  return {
    outcome: outcome(task, test, response, test.kind === 'io' ? test.expectedStdout : undefined),
    row,
  };
}

async function runStatefulTest(sandbox: SessionSandbox, task: StoredTask, cells: string[], test: TaskTest) {
  const { runTimeoutS, memoryLimitMB } = task.settings;
  // Stateful tasks only have assert tests (checked on import); the state stands in for the solution.
  const testCode = test.kind === 'assert' ? test.code.replace(INSERT_MARKER, '') : '';
  const { response, row } = await runReplay(
    sandbox,
    runJupyterRequestSchema.parse({
      cells: [...cells, testCode],
      cell_timeout: runTimeoutS,
      total_timeout: runTimeoutS * (cells.length + 1),
      memory_limit_MB: memoryLimitMB,
      files: task.setupFiles,
    }),
  );
  return { outcome: outcome(task, test, response), row };
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
    group: task.passToPass.includes(test.name) ? 'p2p' : 'f2p',
    passed: category === 'success',
    status: category,
    detail: truncateToolResponse(text, DETAIL_CHARS, 'right').text,
  };
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
