import type { Isolation } from './sandbox-launcher';
import { shellCommand } from './shell-quote';

/**
 * Where the run step's stdio lives, relative to the sandbox's TMPDIR: stdout and stderr are named pipes the
 * host reads (real pipes, as SandboxFusion gives, so `echo x > /dev/stderr` works; the sandbox's own fds are
 * sockets, which cannot be reopened through /dev), and stdin is a file the host writes before the job.
 */
export const RUN_STDIO = {
  stdin: '.fusebox-stdin',
  stdout: '.fusebox-stdout',
  stderr: '.fusebox-stderr',
} as const;

/**
 * The shell that runs inside every code sandbox. It starts before the request arrives (so the sandbox is
 * warm), makes the run step's pipes, says `ready`, then reads the job from fd 3: for each of the compile and run
 * steps, an address-space limit for `ulimit -v` and a command line. It reports `compile <t>`,
 * `compiled <status> <t>`, `run <t>` and `ran <status> <t>` on fd 4, which no step can write to; `<t>` is bash's
 * microsecond clock, so a step's execution time is measured where it runs, whatever the host's load. The compile
 * step writes to fds 5 and 6; the run step reads and writes {@link RUN_STDIO}. Exiting ends the sandbox, which
 * kills whatever the steps left running.
 */
export const STEP_DRIVER = `
ulimit -c 0 && ulimit -f "$1" && { [ -z "$2" ] || ulimit -u "$2"; } || exit 1
io="$TMPDIR"
mkfifo "$io/${RUN_STDIO.stdout}" "$io/${RUN_STDIO.stderr}" || exit 1
echo ready >&4
IFS= read -r compile_limit <&3 && IFS= read -r compile_command <&3 &&
  IFS= read -r run_limit <&3 && IFS= read -r run_command <&3 || exit 0
exec 3<&-
if [ -n "$compile_command" ]; then
  echo "compile $EPOCHREALTIME" >&4
  (ulimit -v "$compile_limit" && eval "exec $compile_command") </dev/null >&5 2>&6 4>&- 5>&- 6>&-
  status=$?
  echo "compiled $status $EPOCHREALTIME" >&4
  [ "$status" -eq 0 ] || exit 0
fi
exec 5>&- 6>&-
echo "run $EPOCHREALTIME" >&4
(ulimit -v "$run_limit" && eval "exec $run_command") <"$io/${RUN_STDIO.stdin}" >"$io/${RUN_STDIO.stdout}" \
  2>"$io/${RUN_STDIO.stderr}" 4>&-
echo "ran $? $EPOCHREALTIME" >&4
`;

/**
 * The command of a code sandbox: {@link STEP_DRIVER} in bash, with the limits no step may raise (no core dumps,
 * files of at most `fileSizeBytes`, bash counts them in KiB; at most `maxProcesses` processes and threads, see
 * {@link sandboxProcessLimit}).
 *
 * @example
 * pool = new SandboxPool(launcher, { command: stepDriverCommand(512 * 1024 * 1024, 512), init: true }, 2, onError);
 */
export function stepDriverCommand(fileSizeBytes: number, maxProcesses: number | undefined): string[] {
  return [
    '/bin/bash',
    '-c',
    STEP_DRIVER,
    'fusebox-driver',
    String(Math.ceil(fileSizeBytes / 1024)),
    maxProcesses === undefined ? '' : String(maxProcesses),
  ];
}

/**
 * The `RLIMIT_NPROC` a sandbox's own command sets, or none. Set inside the sandbox's user namespace, Linux
 * (5.14 and later) counts it per user namespace, so it caps that sandbox's processes and threads alone: the one
 * process cap there is without cgroups (Fusebox not root), and a second one beside them. Without isolation there
 * is no namespace, and the limit would count every process of the host uid, the API's own included: none then.
 */
export function sandboxProcessLimit(isolation: Isolation, maxProcesses: number): number | undefined {
  return isolation === 'bwrap' ? maxProcesses : undefined;
}

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
