import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  type RunCodeRequest,
  type RunCodeResponse,
  runCodeRequestSchema,
} from '@fusebox/sandbox-client/protocol';
import { z } from 'zod';
import type { StoredTask } from '@fusebox/tasks';

/**
 * The trusted runner of Python assert tests (see test-runner.py): our code, run as a `/run_code` program, which
 * runs the model's code in a child process and decides the verdict itself.
 */
const RUNNER_SOURCE = readFileSync(new URL('./test-runner.py', import.meta.url), 'utf8');
/**
 * Where the runner finds its job (the test and its key) and the code it tests; it deletes both files before any
 * of the model's code runs.
 */
const JOB_FILE = '.fusebox-test.json';
const SUBJECT_FILE = '.fusebox-subject.json';
/** A verdict line: the HMAC-SHA256 of the verdict's JSON (hex), and the JSON. */
const VERDICT_LINE = /^fusebox-verdict ([0-9a-f]{64}) (.+)$/;

/** What a test runs against: a stateful session's cells (replayed), or a fresh session's program. */
export type TestSubject = { mode: 'cells'; cells: string[] } | { mode: 'program'; solution: string };

/** One test's verdict as the runner words it; `status` is describeRun's category. */
export interface TrustedVerdict {
  passed: boolean;
  status: string;
  detail: string;
}

const verdictSchema = z.object({
  passed: z.boolean(),
  status: z.enum(['success', 'wrong_answer', 'runtime_error']),
  detail: z.string(),
});

/**
 * Whether the trusted runner can judge an assert test: every Python one, and pytest ones that need nothing of
 * pytest's own (no fixture arguments, marks or decorators, test classes, `pytest.*` helpers), whose test
 * functions the runner calls itself. The others run under pytest, in the model's process (docs/sessions.md).
 */
export function judgedByTrustedRunner(language: string, testCode: string): boolean {
  if (language === 'python') return true;
  if (language !== 'pytest') return false;
  const testFunctions = [...testCode.matchAll(/^\s*(?:async\s+)?def\s+test\w*\s*\(([^)]*)\)/gm)];
  return (
    testFunctions.length > 0 &&
    testFunctions.every(([, parameters]) => (parameters ?? '').trim() === '') &&
    !/^\s*@|^\s*class\s+Test|\bpytest\b|\bfixture\b|^\s*async\s+def/m.test(testCode)
  );
}

/**
 * The code a reward's tests run against, as the runner's file (base64 JSON) and the runs it makes (each cell,
 * then the test). Built once per reward: it is every test's largest part, up to FUSEBOX_SESSION_MAX_CODE_BYTES,
 * and encoding it once per test held the event loop for each.
 */
export interface TrustedSubject {
  file: string;
  runs: number;
}

export function trustedSubject(subject: TestSubject): TrustedSubject {
  const code = {
    mode: subject.mode,
    cells: subject.mode === 'cells' ? subject.cells : [],
    solution: subject.mode === 'program' ? subject.solution : '',
  };
  return {
    file: Buffer.from(JSON.stringify(code)).toString('base64'),
    runs: subject.mode === 'cells' ? subject.cells.length + 1 : 1,
  };
}

/** A runner job: the `/run_code` request, and the key its verdict line must be signed with. */
export interface TrustedTestJob {
  request: RunCodeRequest;
  key: string;
}

/**
 * The `/run_code` request that runs one assert test in the trusted runner. The job (the test and the key) and the
 * model's code go in as files the runner reads and deletes first; the key is fresh for every run.
 */
export function trustedTestJob(task: StoredTask, testCode: string, subject: TrustedSubject): TrustedTestJob {
  const { runTimeoutS, memoryLimitMB } = task.settings;
  const key = randomBytes(32).toString('hex');
  const job = {
    key,
    test: testCode,
    // A pytest test defines test functions: the runner calls them, as pytest would.
    call_tests: task.language === 'pytest',
  };
  return {
    key,
    request: runCodeRequestSchema.parse({
      code: RUNNER_SOURCE,
      language: 'python',
      compile_timeout: runTimeoutS,
      run_timeout: runTimeoutS * subject.runs,
      memory_limit_MB: memoryLimitMB,
      files: {
        ...task.setupFiles,
        [SUBJECT_FILE]: subject.file,
        [JOB_FILE]: Buffer.from(JSON.stringify(job)).toString('base64'),
      },
    }),
  };
}

/**
 * The verdict of a runner's run, from what the host saw: the exit status the sandbox's driver reported for the
 * runner (0), and exactly one line on its stdout signed with this run's key (HMAC-SHA256 of the verdict's JSON:
 * the line never shows the key, so whatever reads it cannot sign another). Anything else (a timeout, a crash, no
 * verdict, two verdicts) is undefined: the test did not pass, and describeRun says why.
 */
export function trustedVerdict(response: RunCodeResponse, key: string): TrustedVerdict | undefined {
  const run = response.run_result;
  if (response.status !== 'Success' || run?.status !== 'Finished' || run.return_code !== 0) return undefined;
  const signed = (run.stdout ?? '').split('\n').flatMap((line) => {
    const match = VERDICT_LINE.exec(line);
    return match && signs(key, match[2] as string, match[1] as string) ? [match[2] as string] : [];
  });
  if (signed.length !== 1) return undefined;
  try {
    const parsed = verdictSchema.safeParse(JSON.parse(signed[0] as string));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `mac` (hex) is the runner's signature of `text` with `key`. */
function signs(key: string, text: string, mac: string): boolean {
  const expected = createHmac('sha256', key).update(text).digest();
  const given = Buffer.from(mac, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
