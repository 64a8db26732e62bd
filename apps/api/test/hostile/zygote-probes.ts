import { beforeAll } from 'vitest';
import { type Probes, useProbes } from './sandbox-probe';

/**
 * Python: whether this run was forked from a zygote (its pid 1 is run-init, or the run's init, a copy of the
 * zygote), and the zygote's hash seed.
 */
const FORKED = `
result["forked"] = attempt(lambda: any(mark in open("/proc/1/cmdline", "rb").read() for mark in (b"/run-init", b"python-zygote.py")))
result["hash"] = hash("fusebox")
`;

/**
 * Probes of the forked Python path on one executor slot, so every run is forked from the same zygote until it is
 * replaced: each probe's "next run" is the one it aimed at. `forked` runs a probe body and adds whether the run
 * was forked and `hash("fusebox")` (the zygote's hash seed): equal in two runs, they came from the same zygote,
 * so a probe cannot pass because its next run went cold or to a fresh zygote. Runs go cold while the zygote starts
 * (slow under load), so the file's tests wait for a forked one first. `runInit`: FUSEBOX_PYTHON_RUN_INIT.
 */
export function useZygoteProbes(
  runTimeoutS: number,
  runInit: 'on' | 'off' = 'on',
): {
  probes: Probes;
  forked: (body: string) => ReturnType<Probes['python']>;
} {
  const probes = useProbes({
    FUSEBOX_PYTHON_ZYGOTE: 'on',
    FUSEBOX_EXECUTOR_CONCURRENCY: '1',
    FUSEBOX_PYTHON_RUN_INIT: runInit,
  });
  const forked = (body: string) =>
    probes.python('run_code', `import subprocess\n${FORKED}\n${body}`, runTimeoutS);
  beforeAll(async () => {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      if ((await forked('')).forked === true) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error('no run was forked from a zygote in 100 attempts');
  }, 120_000);
  return { probes, forked };
}
