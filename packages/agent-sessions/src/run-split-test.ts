import { createHash } from 'node:crypto';
import type { RunCodeResponse } from '@fusebox/sandbox-client/protocol';
import type { StoredTask } from '@fusebox/tasks';
import { readReports } from './assert-reports';
import { splitBashTest } from './bash-asserts';
import { splitCppTest } from './cpp-asserts';
import { splitGoTest } from './go-asserts';
import { splitJavaTest } from './java-asserts';
import { splitJavaScriptTest } from './javascript-asserts';
import { splitLuaTest } from './lua-asserts';
import { splitPerlTest } from './perl-asserts';
import { programRequest } from './program-request';
import { splitRTest } from './r-asserts';
import { splitRubyTest } from './ruby-asserts';
import { splitRustTest } from './rust-asserts';
import type { ExecutionRow, SessionSandbox } from './session-sandbox';
import type { SplitTest } from './split-test';
import type { TrustedVerdict } from './trusted-test';

/**
 * The split of an assert test in a language this knows, or undefined (the test keeps the marker path). Splits
 * are kept by the test's text: a task's tests are judged again for every rollout, and parsing one costs the
 * event loop tens of milliseconds before the parser is warm.
 */
export function splitTest(language: string, testCode: string): SplitTest | undefined {
  const key = `${language}\0${testCode}`;
  if (splits.has(key)) return splits.get(key);
  const split = splitIn(language, testCode);
  if (splits.size >= SPLIT_CACHE_ENTRIES) splits.delete(splits.keys().next().value as string);
  splits.set(key, split);
  return split;
}

/** Splits by language and test text (undefined too: a test the splitter refused stays refused). */
const splits = new Map<string, SplitTest | undefined>();
/** How many tests' splits are kept (each a few kB). */
const SPLIT_CACHE_ENTRIES = 4096;

function splitIn(language: string, testCode: string): SplitTest | undefined {
  switch (language) {
    case 'nodejs':
    case 'typescript':
      return splitJavaScriptTest(testCode);
    case 'cpp':
      return splitCppTest(testCode);
    case 'java':
      return splitJavaTest(testCode);
    case 'rust':
      return splitRustTest(testCode);
    case 'go_test':
      return splitGoTest(testCode);
    case 'ruby':
      return splitRubyTest(testCode);
    case 'lua':
      return splitLuaTest(testCode);
    case 'R':
      return splitRTest(testCode);
    case 'perl':
      return splitPerlTest(testCode);
    case 'bash':
      return splitBashTest(testCode);
    default:
      return undefined;
  }
}

export interface SplitRun {
  /** The run of the model's program. */
  response: RunCodeResponse;
  rows: ExecutionRow[];
  /** The host's verdict; undefined when the program did not end with status 0 (describeRun then says why). */
  verdict: TrustedVerdict | undefined;
}

/**
 * Runs a split test: the expected program first where the language needs one (its result is cached by its
 * text, as it holds nothing of the model's), then the model's program, and compares on the host. Undefined when
 * the expected program itself could not report every site (a literal its serialiser does not know, a literal
 * its compiler cannot type): the test then runs on the marker path, untrusted, as an unsplit test does. When the
 * expected program did not run to its own end (a sandbox error, a lost permit, a timeout or a kill, as a loaded
 * machine gives), the test fails with `sandbox_error` instead: the marker path would put the expected values in
 * the model's process, and a load the model's own runs can make would then let it read them.
 */
export async function runSplitTest(
  sandbox: SessionSandbox,
  task: StoredTask,
  solution: string,
  split: SplitTest,
): Promise<SplitRun | undefined> {
  const rows: ExecutionRow[] = [];
  let expected: string[] | undefined;
  if (split.expectedProgram !== undefined) {
    const values = await expectedValues(sandbox, task, split, rows);
    if (values === 'refused') return undefined;
    if (!Array.isArray(values)) return unjudged(values, rows);
    expected = values;
  }
  const { response, row } = await sandbox.runProgram(splitRequest(task, split.program(solution), split));
  rows.push(row);
  const run = response.run_result;
  if (response.status !== 'Success' || run?.status !== 'Finished' || run.return_code !== 0)
    return { response, rows, verdict: undefined };
  const reports = readReports(reportText(response, split));
  const failures = reports.malformed.map((line) => `a malformed report line: ${line}`);
  for (const site of reports.bySite.keys())
    if (site >= split.sites.length) failures.push(`a report for no assert of this test (${site})`);
  const unchecked: string[] = [];
  split.sites.forEach((site, index) => {
    const values = reports.bySite.get(index) ?? [];
    if (values.length === 0) unchecked.push(`line ${site.line}: ${site.source}: never checked`);
    for (const value of values) {
      const check =
        value.length > MAX_REPORT_CHARS
          ? { holds: false as const, why: `a report of more than ${MAX_REPORT_CHARS} characters` }
          : split.holds(site, value, expected?.[index]);
      if (!check.holds) {
        failures.push(`line ${site.line}: ${site.source}: ${check.why}`);
        break;
      }
    }
  });
  const shown = {
    ...response,
    run_result: { ...run, stdout: split.reportFile === undefined ? reports.output : (run.stdout ?? '') },
  };
  if (failures.length === 0 && unchecked.length === 0)
    return { response: shown, rows, verdict: { passed: true, status: 'success', detail: '' } };
  if (unchecked.length > 0)
    failures.push(
      ...unchecked,
      `(the test did not run to its end: ${unchecked.length} of ${split.sites.length} asserts were never checked)`,
    );
  const output = reports.output.trim();
  return {
    response: shown,
    rows,
    verdict: {
      passed: false,
      // An assert never reached: the program ended (or returned) before the test did.
      status: unchecked.length > 0 ? 'runtime_error' : 'wrong_answer',
      detail: `${failures.join('\n')}${output === '' ? '' : `\n--- output (end) ---\n${output.slice(-2000)}`}`,
    },
  };
}

/**
 * The longest report the host reads: parsing and comparing one costs the event loop time in its size (13 MB of
 * JSON took 57 ms to parse alone), and a test's expected values are literals, far smaller.
 */
const MAX_REPORT_CHARS = 1 << 20;

/** Expected programs' reports by the program's hash: they hold only the test's literals. */
const expectedCache = new Map<string, string[]>();
/** How many expected programs' results the cache keeps (each a task test's few literals). */
const EXPECTED_CACHE_ENTRIES = 4096;

/**
 * The expected program's report of every site; `'refused'` when the program itself ended without one (its
 * compiler or serialiser refused a literal: a non-zero exit of its own, or a site not reported once); or the
 * response of a run that did not reach its own end.
 */
async function expectedValues(
  sandbox: SessionSandbox,
  task: StoredTask,
  split: SplitTest,
  rows: ExecutionRow[],
): Promise<string[] | 'refused' | RunCodeResponse> {
  const program = split.expectedProgram ?? '';
  const key = createHash('sha256').update(task.language).update('\0').update(program).digest('hex');
  const cached = expectedCache.get(key);
  if (cached !== undefined) return cached;
  const { response, row } = await sandbox.runProgram(splitRequest(task, program, split));
  rows.push(row);
  const run = response.run_result;
  if (response.status !== 'Success' || run?.status !== 'Finished' || run.return_code !== 0)
    return endedByItself(response) ? 'refused' : response;
  const { bySite } = readReports(reportText(response, split));
  const values: string[] = [];
  for (let site = 0; site < split.sites.length; site++) {
    const reported = bySite.get(site);
    if (reported?.length !== 1) return 'refused';
    values.push(reported[0] as string);
  }
  if (expectedCache.size >= EXPECTED_CACHE_ENTRIES)
    expectedCache.delete(expectedCache.keys().next().value as string);
  expectedCache.set(key, values);
  return values;
}

/**
 * Whether a failed expected program refused a literal itself: its compiler did (a compile step that finished
 * with a non-zero status; `go test`'s "[build failed]"), or its serialiser did, saying so (REFUSALS). Anything
 * else (a timeout, a kill, a sandbox error, a lost permit, a crash that says nothing of a literal, and a compile
 * that failed to fork: MACHINE_FAILURES, as when other runs hold the process budget) is the machine's doing.
 */
function endedByItself(response: RunCodeResponse): boolean {
  if (response.status !== 'Failed') return false;
  const finishedBadly = (step: RunCodeResponse['run_result']) =>
    step?.status === 'Finished' &&
    step.return_code !== null &&
    step.return_code !== 0 &&
    !SIGKILL_CODES.has(step.return_code);
  const step = response.run_result ?? response.compile_result;
  if (!finishedBadly(step)) return false;
  const output = `${step?.stdout ?? ''}\n${step?.stderr ?? ''}`;
  const lower = output.toLowerCase();
  if (MACHINE_FAILURES.some((failure) => lower.includes(failure))) return false;
  return response.run_result === null || REFUSALS.some((refusal) => output.includes(refusal));
}

/**
 * What a compiler or runtime prints when the machine, not the program, failed it: a fork, a thread or memory
 * refused (EAGAIN, ENOMEM), or a compiler killed, as when other runs hold the sandboxes' whole process or memory
 * budget. Matched in
 * lower case: Go spells strerror in lower case ("fork/exec ...: resource temporarily unavailable"), its runtime
 * names only the errno ("failed to create new OS thread (...; errno=11)"), and HotSpot names the constant.
 */
const MACHINE_FAILURES = [
  'resource temporarily unavailable',
  'cannot allocate memory',
  'unable to create native thread',
  'cannot fork',
  'could not exec the linker',
  'failed to create new os thread',
  'errno=11',
  'errno=12',
  'pthread_create failed',
  '(eagain)',
  '(enomem)',
  // A compiler or linker the kernel killed (the OOM killer of the sandbox's or the budget's memory cgroup): the
  // compile step itself finishes with the driver's own status (go test 1, g++ 1, rustc 1), not 137.
  'signal: killed',
  'signal: 9',
  'killed signal terminated program',
];

/**
 * What an expected program prints when it refuses a literal: the serialisers' own errors (Ruby, Lua, R, Perl,
 * Java), and `go test`'s line for a test file that did not compile.
 */
const REFUSALS = ['fusebox: no report', 'fusebox: not one value', 'nested too deeply', '[build failed]'];

/** The exit statuses of a process killed by SIGKILL, as the sandbox reports them. */
const SIGKILL_CODES = new Set([-9, 137]);

/** A split test whose expected program did not run to its own end: not judged, and not passed. */
function unjudged(response: RunCodeResponse, rows: ExecutionRow[]): SplitRun {
  const why =
    response.status === 'SandboxError'
      ? `a sandbox error: ${response.message}`
      : [response.compile_result, response.run_result]
          .filter((step) => step !== null && step.status !== 'Finished')
          .map((step) => step?.status)
          .join(', ') || 'a kill';
  return {
    response,
    rows,
    verdict: {
      passed: false,
      status: 'sandbox_error',
      detail: `the test's expected values could not be computed (${why}): the test was not judged; compute the reward again`,
    },
  };
}

/** The `/run_code` request of one of a split test's programs, fetching back its report file if it has one. */
function splitRequest(task: StoredTask, code: string, split: SplitTest) {
  const request = programRequest(task, code);
  return split.reportFile === undefined ? request : { ...request, fetch_files: [split.reportFile] };
}

/** Where a split test's program left its report lines: its report file (base64 in the response), or stdout. */
function reportText(response: RunCodeResponse, split: SplitTest): string {
  if (split.reportFile === undefined) return response.run_result?.stdout ?? '';
  const file = response.files[split.reportFile];
  return file === undefined ? '' : Buffer.from(file, 'base64').toString('utf8');
}
