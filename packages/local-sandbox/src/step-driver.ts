import { shellCommand } from './shell-quote';

/**
 * The shell that runs inside every code sandbox. It starts before the request arrives (so the sandbox is
 * warm), says `ready`, then reads the job from fd 3: for each of the compile and run steps, an address-space
 * limit for `ulimit -v` and a command line. It reports `compile`, `compiled <status>`, `run` and
 * `ran <status>` on fd 4, which no step can write to. Steps never see fds 3-6: the compile step writes to 5
 * and 6, the run step to 1 and 2 and reads the request's stdin on 0. Exiting ends the sandbox, which kills
 * whatever the steps left running.
 */
export const STEP_DRIVER = `
echo ready >&4
IFS= read -r compile_limit <&3 && IFS= read -r compile_command <&3 &&
  IFS= read -r run_limit <&3 && IFS= read -r run_command <&3 || exit 0
exec 3<&-
if [ -n "$compile_command" ]; then
  echo compile >&4
  (ulimit -v "$compile_limit" && eval "exec $compile_command") </dev/null >&5 2>&6 4>&- 5>&- 6>&-
  status=$?
  echo "compiled $status" >&4
  [ "$status" -eq 0 ] || exit 0
fi
exec 5>&- 6>&-
echo run >&4
(ulimit -v "$run_limit" && eval "exec $run_command") 4>&-
echo "ran $?" >&4
`;

/** One step of a job: an argv, and an address-space limit in bytes (undefined: none). */
export interface DriverStep {
  argv: readonly string[];
  memoryLimitBytes: number | undefined;
}

/** The four lines {@link STEP_DRIVER} reads from fd 3. */
export function encodeJob(compile: DriverStep | undefined, run: DriverStep): string {
  for (const word of [...(compile?.argv ?? []), ...run.argv]) {
    if (word.includes('\n'))
      throw new TypeError(`a step's argv cannot hold a newline: ${JSON.stringify(word)}`);
  }
  const limit = (step: DriverStep | undefined) =>
    step?.memoryLimitBytes === undefined ? 'unlimited' : String(Math.ceil(step.memoryLimitBytes / 1024));
  return [
    limit(compile),
    compile ? shellCommand(compile.argv) : '',
    limit(run),
    shellCommand(run.argv),
    '',
  ].join('\n');
}
