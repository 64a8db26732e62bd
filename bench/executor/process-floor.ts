// What a forked Python run's processes cost in CPU before any isolation, against what a forked run costs in its
// own cgroup, in one run: the floor under issue #16's target of 3 ms of CPU per print(1) run. A forked run is two
// processes forked from the zygote's Python (pid 1 of its pid namespace, and the program it forks); each pays its
// page faults and its exit, whatever the sandbox does.
// Usage (as root): node --conditions=@fusebox/source --import tsx bench/executor/process-floor.ts
import { spawnSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { createExecutor } from '@fusebox/local-sandbox/executor';
import { DEFAULT_ZYGOTE_MODULES } from '@fusebox/local-sandbox/executor-options';
import { markdownTable, writeResults } from '../write-results';

const COMMAND = 'node --conditions=@fusebox/source --import tsx bench/executor/process-floor.ts';
const RUNS = 400;
const TARGET_MS = 3;

/**
 * Python with the zygote's default modules imported and its objects frozen, as a zygote has them; it forks
 * `RUNS` children of each shape (the first tenth dropped), and prints the CPU and minor faults per child, all
 * its descendants included (wait4's rusage).
 */
const FLOOR_SCRIPT = `
import gc, json, os, sys
for name in ${JSON.stringify(DEFAULT_ZYGOTE_MODULES)}:
    __import__(name)
gc.freeze()
devnull = os.open(os.devnull, os.O_WRONLY)

def nothing():
    pass

def print_one():
    os.dup2(devnull, 1)
    exec(compile('print(1)', 'main.py', 'exec'), {'__name__': '__main__'})
    sys.stdout.flush()

def twice(program):
    def init():
        child = os.fork()
        if child == 0:
            program()
            os._exit(0)
        os.waitpid(child, 0)
    return init

def per_child(body):
    cpu, faults, counted = 0.0, 0, 0
    for index in range(${RUNS}):
        child = os.fork()
        if child == 0:
            body()
            os._exit(0)
        _, _, usage = os.wait4(child, 0)
        if index >= ${RUNS} // 10:
            cpu += usage.ru_utime + usage.ru_stime
            faults += usage.ru_minflt
            counted += 1
    return {'cpuMs': cpu / counted * 1000, 'faults': faults / counted}

print(json.dumps({
    'one': per_child(nothing),
    'two': per_child(twice(nothing)),
    'twoPrint': per_child(twice(print_one)),
}))
`;

interface Floor {
  cpuMs: number;
  faults: number;
}

function floors(): Record<'one' | 'two' | 'twoPrint', Floor> {
  const result = spawnSync('/usr/bin/python3', ['-c', FLOOR_SCRIPT], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`the floor script failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as Record<'one' | 'two' | 'twoPrint', Floor>;
}

/** CPU per forked print(1) run, from each run's own cgroup (what the executor reports), one run at a time. */
async function forkedRunCpuMs(): Promise<number> {
  const executor = await createExecutor({ pythonZygote: true, concurrency: 1, warn: () => {} });
  try {
    while (executor.stats().idleZygotes === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    const cpu: number[] = [];
    for (let index = 0; index < RUNS; index++) {
      const run = await executor.runCode({ code: 'print(1)', language: 'python' });
      if (run.response.run_result?.stdout !== '1\n') throw new Error(`a run answered ${JSON.stringify(run)}`);
      if (run.cpuMs === undefined) throw new Error('runs report no CPU time here (no cgroups?)');
      if (index >= RUNS / 10) cpu.push(run.cpuMs);
    }
    const forked = executor.stats().forkedRuns;
    if (forked < RUNS) throw new Error(`only ${forked} of ${RUNS} runs were forked`);
    return cpu.reduce((sum, value) => sum + value, 0) / cpu.length;
  } finally {
    await executor.close();
  }
}

async function main(): Promise<void> {
  const load = loadavg().map((value) => value.toFixed(1));
  const floor = floors();
  const forked = await forkedRunCpuMs();
  const ms = (value: number) => value.toFixed(2);
  const rows = [
    ['one Python child, exits at once', ms(floor.one.cpuMs), floor.one.faults.toFixed(0)],
    ['two (a child forks a grandchild), both exit at once', ms(floor.two.cpuMs), floor.two.faults.toFixed(0)],
    ['two, the grandchild runs print(1)', ms(floor.twoPrint.cpuMs), floor.twoPrint.faults.toFixed(0)],
    ['forked run of print(1) (its own cgroup, isolated)', ms(forked), ''],
  ];
  const markdown = [
    '# Process floor of a forked Python run',
    '',
    `Command: \`${COMMAND}\``,
    `Date: ${new Date().toISOString()}`,
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; load average ${load.join(' ')} before`,
    '',
    `Debian's python3 with the zygote's default modules imported and gc.freeze()d forks ${RUNS} children of each shape`,
    "(the first tenth dropped); CPU and minor page faults per child from wait4's rusage, its descendants included.",
    'No namespace, mount, cgroup or seccomp is involved in the first three rows. The last row is what forked runs',
    "report from their own cgroup: the init's isolation set-up, the program, both exits and the namespaces' teardown.",
    '',
    markdownTable(['what', 'CPU per run ms', 'minor faults'], rows),
    '',
    `Target (issue #16): ≤ ${TARGET_MS} ms of CPU per print(1) run. The two processes a run needs cost`,
    `${ms(floor.twoPrint.cpuMs)} ms here with no isolation at all (${((floor.twoPrint.cpuMs / TARGET_MS) * 100).toFixed(0)}% of the target); the forked run costs`,
    `${ms(forked)} ms (${(forked / floor.twoPrint.cpuMs).toFixed(2)}× that floor), so its isolation (namespaces, mounts, user namespace,`,
    `capabilities, seccomp, and their teardown) costs about ${ms(forked - floor.twoPrint.cpuMs)} ms of it.`,
    '',
  ].join('\n');
  process.stdout.write(`${markdown}\n`);
  await writeResults(new URL('./PROCESS-FLOOR.md', import.meta.url), markdown);
}

await main();
