/** What a sandbox's threads had of the CPU at one moment (see {@link SandboxCgroup.cpuSample}). */
export interface CpuSample {
  /** When it was taken (`performance.now()`). */
  atMs: number;
  /** CPU time of the sandbox so far (`cpuacct.usage`), in ms. */
  usageMs: number;
  /** Per live thread id: the time it has spent runnable, waiting in a run queue for a CPU (schedstat), in ns. */
  waitsNs: ReadonlyMap<number, number>;
  /** The cores the sandbox may use at most: its CPU quota, or one core without a quota below that. */
  allowedCores: number;
}

/**
 * Below this share of the CPU it was allowed, while one of its threads waited for a CPU at least this share of
 * the time, a step was starved by the machine. Both sides are needed: a compiler blocked on something else uses
 * no CPU but waits for none either, and a step held to its quota waits by the quota's design while getting what
 * it was allowed.
 */
const STARVED_SHARE = 0.5;

/**
 * Why a step that ran out of its `timeoutMs` did so because the machine gave it too little CPU, or undefined if it
 * had its share: the SandboxFusion answer would be `TimeLimitExceeded`, a failure a reward scores against the
 * program, though the program was never given the time it was promised. `before` and `after` bracket the step.
 *
 * The wait that counts is one thread's, never a sum: threads of the sandbox wait for each other, and many of
 * them, woken together, add up to any multiple of the time while using little CPU. One thread can only have
 * waited while a CPU it may run on was busy: with nothing outside the sandbox busy, that was the sandbox's own
 * use, which the first condition then finds too high to call it starved.
 *
 * @example
 * cpuStarvation('compile', 10_000, before, after); // "the compile step ran out of its 10 s for want of CPU: …"
 */
export function cpuStarvation(
  step: string,
  timeoutMs: number,
  before: CpuSample,
  after: CpuSample,
): string | undefined {
  const windowMs = after.atMs - before.atMs;
  const usedMs = after.usageMs - before.usageMs;
  let longestWaitNs = 0;
  for (const [thread, waitNs] of after.waitsNs) {
    const earlier = before.waitsNs.get(thread) ?? 0;
    // A smaller count than before is a thread id reused by a newer thread: all of its wait is since then.
    longestWaitNs = Math.max(longestWaitNs, waitNs >= earlier ? waitNs - earlier : waitNs);
  }
  const longestWaitMs = longestWaitNs / 1e6;
  const allowedMs = after.allowedCores * windowMs;
  if (windowMs <= 0 || usedMs >= STARVED_SHARE * allowedMs || longestWaitMs < STARVED_SHARE * windowMs) {
    return undefined;
  }
  return (
    `the ${step} step ran out of its ${timeoutMs / 1000} s for want of CPU: in the ${Math.round(windowMs)} ms ` +
    `measured it got ${Math.round(usedMs)} ms of the ${Math.round(allowedMs)} ms of CPU it may use, while one ` +
    `of its threads waited ${Math.round(longestWaitMs)} ms in a run queue; the machine was overloaded, the ` +
    `result is not its program's (ask again, or lower FUSEBOX_EXECUTOR_CONCURRENCY)`
  );
}
