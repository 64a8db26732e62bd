import type { CommandRunResult } from '@fusebox/sandbox-client/protocol';
import { type CpuSample, cpuStarvation } from './cpu-starvation';
import { RunStdio } from './run-stdio';
import type { Sandbox } from './sandbox';
import { type DriverStep, encodeJob } from './step-driver';
import { MAX_TIMER_MS, StepTimer } from './step-timer';

/** A driver that has not started the first step after this long is stuck: the sandbox is killed. */
const START_GUARD_MS = 10_000;
/** After the last step, the sandbox must have ended within this long, or it is killed. */
const FINISH_GUARD_MS = 5_000;

export interface Job {
  compile: DriverStep | undefined;
  run: DriverStep;
  stdin: string | null;
  compileTimeoutMs: number;
  runTimeoutMs: number;
}

export interface JobResult {
  compile: CommandRunResult | null;
  run: CommandRunResult | null;
  /** Set when the sandbox failed before running the user's code: the run is a `SandboxError`. */
  sandboxError: string | undefined;
  compileMs: number | null;
  runMs: number | null;
  outputTruncated: boolean;
  /** Set when the compile step timed out for want of CPU (see {@link cpuStarvation}). */
  starved: string | undefined;
}

export interface Step {
  /** The host's clock (ms) when it heard of the step's start and end: what timeouts are measured on. */
  startedAt?: number;
  endedAt?: number;
  /** The driver's clock (s) at the step's start and end: what its execution time is measured on. */
  ranFrom?: number;
  ranTo?: number;
  status?: number;
  timedOut?: boolean;
}

/** The driver's events in the order it sends them; anything else on its channel means it is not the driver. */
const EVENT_ORDER = ['compile', 'compiled', 'run', 'ran'] as const;

/**
 * Runs a job in a warm sandbox running the step driver as its pid 1: writes the run step's stdin, sends the
 * job, reads the run step's output pipes, times each step from the driver's events, kills the whole sandbox
 * when a step overruns its timeout (or `signal` aborts, or the run step has ended), and waits for the run's
 * output pipes to end before reporting. The caller disposes of the sandbox.
 *
 * Nothing the submitted code can reach carries these events (see SandboxLauncher.start), and still each event
 * is taken once and in order, and the job as a whole has a deadline fixed when it is sent, which no event can
 * move: a driver that says anything else is killed and the run is a SandboxError.
 */
export async function runJob(
  sandbox: Sandbox,
  job: Job,
  { signal }: { signal?: AbortSignal } = {},
): Promise<JobResult> {
  const compile: Step = {};
  const run: Step = {};
  const timer = new StepTimer();
  /** What the sandbox had of the CPU when the compile step started, to judge its timeout by. */
  let compileCpu: CpuSample | undefined;
  let starved: string | undefined;
  const overrun = (step: Step) => () => {
    step.timedOut = true;
    step.endedAt = performance.now();
    // Only a compile: a compiler is busy on the CPU until it is done, while a run's program may sleep or wait.
    const after = step === compile ? sandbox.cpuSample() : undefined;
    if (compileCpu && after) starved = cpuStarvation('compile', job.compileTimeoutMs, compileCpu, after);
    sandbox.kill();
  };
  const onAbort = () => sandbox.kill();
  signal?.addEventListener('abort', onAbort, { once: true });
  timer.arm(START_GUARD_MS, () => sandbox.kill());
  const deadline = setTimeout(
    () => sandbox.kill(),
    Math.min(START_GUARD_MS + job.compileTimeoutMs + job.runTimeoutMs + FINISH_GUARD_MS, MAX_TIMER_MS),
  );
  let protocolError: string | undefined;
  /** Set when the run step reported its end and nothing else is awaited from the sandbox (see below). */
  let finished = false;
  let heard = job.compile ? -1 : EVENT_ORDER.indexOf('compiled');
  const stdio = new RunStdio(sandbox.workdir.tmp, job.stdin, sandbox.outputs[1].limit);
  try {
    sandbox.control.end(encodeJob(job.compile, job.run));
    for (let line = await sandbox.events.next(); line !== undefined; line = await sandbox.events.next()) {
      const [event, ...fields] = line.split(' ');
      const now = performance.now();
      if (event !== EVENT_ORDER[heard + 1] || !fields.every((field) => /^[0-9.]+$/.test(field))) {
        protocolError = `the sandbox's driver sent an unexpected line: ${JSON.stringify(line.slice(0, 200))}`;
        sandbox.kill();
        break;
      }
      heard += 1;
      if (event === 'compile' || event === 'run') {
        const step = event === 'compile' ? compile : run;
        step.startedAt = now;
        step.ranFrom = Number(fields[0]);
        if (event === 'compile') compileCpu = sandbox.cpuSample();
        timer.arm(event === 'compile' ? job.compileTimeoutMs : job.runTimeoutMs, overrun(step));
      } else if (event === 'compiled' || event === 'ran') {
        const step = event === 'compiled' ? compile : run;
        if (step.timedOut) continue;
        step.endedAt = now;
        step.status = Number(fields[0]);
        step.ranTo = Number(fields[1]);
        timer.arm(FINISH_GUARD_MS, () => sandbox.kill());
        // Nothing is left to hear: kill what the step left behind rather than wait for the sandbox to wind
        // down by itself (its namespaces' teardown took 2 ms of each run's answer here). The run's own output
        // is complete once its pipes end, which they do as soon as every process holding them is dead. A
        // compile step's output goes through pipes only the sandbox's end closes: then the sandbox is awaited.
        if (event === 'ran' && !job.compile) {
          finished = true;
          sandbox.kill();
          break;
        }
      }
    }
    if (sandbox.events.overflowed) {
      protocolError = "the sandbox's driver sent a line longer than its channel allows";
      sandbox.kill();
    }
    const exit = finished ? undefined : await sandbox.closed;
    stdio.close();
    await stdio.ended;
    signal?.throwIfAborted();
    const outputs = sandbox.outputs;
    const started = compile.startedAt !== undefined || run.startedAt !== undefined;
    if (protocolError !== undefined) {
      return {
        compile: null,
        run: null,
        sandboxError: protocolError,
        compileMs: null,
        runMs: null,
        outputTruncated: false,
        starved: undefined,
      };
    }
    return {
      compile: job.compile
        ? stepResult(compile, exit?.code ?? null, outputs[5].text(), outputs[6].text())
        : null,
      run: stepResult(run, exit?.code ?? null, stdio.stdout.text(), stdio.stderr.text()),
      sandboxError:
        started || exit === undefined
          ? undefined
          : `the sandbox ended before running the code (exit ${exit.code ?? `signal ${exit.signal}`}): ${outputs[2].text()}`,
      compileMs: elapsed(compile),
      runMs: elapsed(run),
      outputTruncated: [outputs[5], outputs[6], stdio.stdout, stdio.stderr].some(
        (output) => output.truncated,
      ),
      starved,
    };
  } finally {
    stdio.close();
    timer.clear();
    clearTimeout(deadline);
    signal?.removeEventListener('abort', onAbort);
  }
}

/** A step's duration in ms: by the driver's clock when it reported both ends, else by the host's. */
export function elapsed(step: Step): number | null {
  if (step.startedAt === undefined) return null;
  if (
    !step.timedOut &&
    step.ranFrom !== undefined &&
    step.ranTo !== undefined &&
    step.ranTo >= step.ranFrom
  ) {
    return (step.ranTo - step.ranFrom) * 1000;
  }
  return (step.endedAt ?? performance.now()) - step.startedAt;
}

/**
 * A step as SandboxFusion reports it: `TimeLimitExceeded` with a null return code after a timeout; otherwise
 * `Finished` with the exit status the driver saw. A step whose status never arrived (something killed the
 * driver) reports the sandbox's own exit status. A step that never started is null.
 */
export function stepResult(
  step: Step,
  sandboxExit: number | null,
  stdout: string,
  stderr: string,
): CommandRunResult | null {
  if (step.startedAt === undefined) return null;
  const executionTime = (elapsed(step) ?? 0) / 1000;
  if (step.timedOut) {
    return { status: 'TimeLimitExceeded', execution_time: executionTime, return_code: null, stdout, stderr };
  }
  return {
    status: 'Finished',
    execution_time: executionTime,
    return_code: step.status ?? sandboxExit ?? 137,
    stdout,
    stderr,
  };
}
