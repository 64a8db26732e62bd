import { join } from 'node:path';
import type { RunCodeRequest } from '@fusebox/sandbox-client/protocol';
import type { CodeRunOutcome } from './code-runner';
import { LANGUAGE_RUNNERS } from './languages';
import { childrenOf } from './process-tree';
import { type Step, elapsed, stepResult } from './run-job';
import { runStatus } from './run-status';
import { RunStdio } from './run-stdio';
import { type PythonZygotes, type Zygote, isPython } from './python-zygotes';
import { joinRunCgroup } from './sandbox-launcher';
import { writeFiles, writeWorkdirFile } from './workdir-files';
import { StepTimer } from './step-timer';

/** A zygote that has not forked the run after this long is stuck: it is killed and the run goes cold. */
const START_GUARD_MS = 10_000;
/** A zygote that has not reported a run it was told to end after this long is stuck: it is killed too. */
const END_GUARD_MS = 10_000;

/** Whether a request can be forked from a zygote: Python whose files need not be fetched after the run. */
export function forkable(request: RunCodeRequest): boolean {
  return request.language === 'python' && request.fetch_files.length === 0;
}

/**
 * Runs a forkable `/run_code` request (see {@link forkable}) in a run forked from an idle zygote, and answers as
 * the cold path does. Resolves undefined when no zygote is idle (nor comes back within `pythonZygoteWaitMs`), or when the zygote died before the program
 * started: the caller then runs the request cold, so a zygote's crash never fails a request. Once the program
 * has started, the zygote's death ends the run as a killed one (137). A run that overruns its timeout is killed
 * alone (its first process, and with it every process of its pid namespace), and its zygote forks the next run; an
 * aborted run kills its whole zygote (which is then replaced), as does a timeout without a run cgroup.
 */
export async function runForked(
  request: RunCodeRequest,
  zygotes: PythonZygotes,
  { signal }: { signal?: AbortSignal } = {},
): Promise<CodeRunOutcome | undefined> {
  const zygote = await zygotes.take({ signal });
  if (!zygote) return undefined;
  let reusable = false;
  try {
    const outcome = await forkRun(zygote, request, signal);
    reusable = outcome?.ended === true;
    return outcome?.result;
  } finally {
    zygotes.giveBack(zygote, reusable);
  }
}

async function forkRun(
  zygote: Zygote,
  request: RunCodeRequest,
  signal: AbortSignal | undefined,
): Promise<{ result: CodeRunOutcome; ended: boolean } | undefined> {
  const { sandbox, cgroup } = zygote;
  const workdir = sandbox.workdir;
  const runner = LANGUAGE_RUNNERS.python;
  if (!runner) return undefined;
  const source = runner.sourceFile();
  try {
    await writeFiles(workdir, request.files);
    await writeWorkdirFile(workdir, source, request.code);
  } catch {
    return undefined; // the cold path gives the same request its answer (an unsafe path's SandboxError)
  }
  const run: Step = {};
  const timer = new StepTimer();
  const kill = () => {
    cgroup?.killAll();
    sandbox.kill();
  };
  /** The run's first process: its init, or with run-init the program (whose end ends the run). */
  let leader: number | undefined;
  // Its pid is known to be the run's while it is in the run's cgroup (not reaped, so not reused).
  const endRun = () => {
    if (leader === undefined || !cgroup?.processes().includes(leader)) return kill();
    try {
      process.kill(leader, 'SIGKILL');
    } catch {
      // It ended meanwhile; the zygote reports that.
    }
    timer.arm(END_GUARD_MS, kill);
  };
  signal?.addEventListener('abort', kill, { once: true });
  const stdio = new RunStdio(workdir.tmp, request.stdin, sandbox.outputs[1].limit);
  try {
    timer.arm(START_GUARD_MS, kill);
    const job = {
      source: join(workdir.inside, source),
      memoryLimitBytes: request.memory_limit_MB > 0 ? request.memory_limit_MB * 1024 * 1024 : null,
    };
    sandbox.control.write(`${JSON.stringify(job)}\n`);
    const started = parseEvent(await sandbox.events.next(), 'run', 1);
    if (started === undefined) return undefined;
    // The run's first process waits for this: from then on, all it does and forks is counted and bounded in the
    // run's own cgroup.
    leader = await joinCgroup(zygote);
    if (leader === undefined) {
      kill();
      return undefined;
    }
    sandbox.control.write('go\n');
    run.startedAt = performance.now();
    run.ranFrom = started[0];
    timer.arm(request.run_timeout * 1000, () => {
      run.timedOut = true;
      run.endedAt = performance.now();
      endRun();
    });
    const ended = parseEvent(await sandbox.events.next(), 'ran', 2);
    timer.clear();
    if (ended === undefined) {
      // The zygote died under a running program (or said something else). That is the run's outcome, as a dead
      // driver is on the cold path (137, what it printed so far), never a second attempt: the program may have
      // had a hand in it, and a re-run would give it a fresh seed and a second full timeout.
      kill();
      run.endedAt ??= performance.now();
    } else {
      run.endedAt ??= performance.now();
      [run.status, run.ranTo] = ended;
    }
    stdio.close();
    await stdio.ended;
    signal?.throwIfAborted();
    const result = stepResult(run, null, stdio.stdout.text(), stdio.stderr.text());
    const { status, message } = runStatus([null, result], cgroup?.starvedBySharedBudget());
    return {
      ended: ended !== undefined,
      result: {
        response: {
          status,
          message,
          compile_result: null,
          run_result: result,
          executor_pod_name: null,
          files: {},
        },
        compileMs: null,
        runMs: elapsed(run),
        ...cpuTime(cgroup),
        outputTruncated: stdio.stdout.truncated || stdio.stderr.truncated,
      },
    };
  } finally {
    stdio.close();
    timer.clear();
    signal?.removeEventListener('abort', kill);
  }
}

/**
 * Moves the run's first process (the zygote's one Python child: the run's init, or beside run-init the program)
 * into the run's cgroup, and makes it (and all it forks) the OOM killer's first choice over its zygote; returns
 * its host pid, or undefined when the zygote has not exactly one such child (it died), or that child died
 * meanwhile. run-init stays in the zygote's cgroup: it forks nothing, and the zygote ends it with the program.
 */
async function joinCgroup(zygote: Zygote): Promise<number | undefined> {
  const children = childrenOf(zygote.pid);
  const [leader, ...others] = children.filter(isPython);
  if (leader === undefined || others.length > 0 || children.length > 2) return undefined;
  try {
    await joinRunCgroup(zygote.cgroup, leader);
    return leader;
  } catch {
    return undefined;
  }
}

/** The CPU time the run's processes used, all of them together, from its cgroup's accounting. */
function cpuTime(cgroup: Zygote['cgroup']): { cpuMs?: number } {
  const cpuMs = cgroup?.cpuUsageMs();
  return cpuMs === undefined ? {} : { cpuMs };
}

/** The numbers of a zygote event, or undefined when the zygote said something else or nothing (it died). */
function parseEvent(line: string | undefined, name: string, fields: number): number[] | undefined {
  const [event, ...values] = line?.split(' ') ?? [];
  if (event !== name || values.length !== fields || !values.every((value) => /^[0-9.]+$/.test(value)))
    return undefined;
  return values.map(Number);
}
