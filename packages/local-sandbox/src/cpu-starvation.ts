/** What a sandbox's threads had of the CPU at one moment (see {@link SandboxCgroup.cpuSample}). */
export interface CpuSample {
  /** CPU time of the sandbox so far (`cpuacct.usage`), in ms. */
  usageMs: number;
  /** Per live thread id: the time it has spent runnable, waiting in a run queue for a CPU (schedstat), in ns. */
  waitsNs: ReadonlyMap<number, number>;
  /** The cores the sandbox may use at most: its CPU quota, or one core without a quota below that. */
  allowedCores: number;
}

/**
 * Below this share of the CPU it was allowed, while waiting for a CPU at least this share of the time, a step was
 * starved by the machine. Both sides are needed: a compiler blocked on something of its program's own doing
 * (`#include "/proc/self/fd/1"` reads its own output pipe) uses no CPU but waits for none either, and a step held
 * to its quota waits by the quota's design while getting what it was allowed.
 */
const STARVED_SHARE = 0.5;

/**
 * Why a step that ran out of its `timeoutMs` did so because the machine gave it too little CPU, or undefined if it
 * had its share: the SandboxFusion answer would be `TimeLimitExceeded`, a failure a reward scores against the
 * program, though the program was never given the time it was promised. `before` and `after` bracket the step.
 *
 * @example
 * cpuStarvation('compile', 10_000, before, after); // "the compile step ran out of its 10 s while …" or undefined
 */
export function cpuStarvation(
  step: string,
  timeoutMs: number,
  before: CpuSample,
  after: CpuSample,
): string | undefined {
  const usedMs = after.usageMs - before.usageMs;
  let waitedNs = 0;
  for (const [thread, waitNs] of after.waitsNs) {
    const earlier = before.waitsNs.get(thread) ?? 0;
    // A smaller count than before is a thread id reused by a newer thread: all of its wait is since then.
    waitedNs += waitNs >= earlier ? waitNs - earlier : waitNs;
  }
  const waitedMs = waitedNs / 1e6;
  const allowedMs = after.allowedCores * timeoutMs;
  if (usedMs >= STARVED_SHARE * allowedMs || waitedMs < STARVED_SHARE * timeoutMs) return undefined;
  return (
    `the ${step} step ran out of its ${timeoutMs / 1000} s for want of CPU: it got ${Math.round(usedMs)} ms of ` +
    `the ${Math.round(allowedMs)} ms it may use and waited ${Math.round(waitedMs)} ms for a CPU while other ` +
    `processes had it; the machine was overloaded, the result is not its program's (ask again, or lower ` +
    `FUSEBOX_EXECUTOR_CONCURRENCY)`
  );
}
