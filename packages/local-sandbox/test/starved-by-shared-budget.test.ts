import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandRunResult } from '@fusebox/sandbox-client/protocol';
import { SandboxCgroup } from '../src/cgroups';
import { runStatus } from '../src/run-status';

// The decision behind a starved run's SandboxError, on cgroup files as cgroup v1 writes them. The kernel's side
// (which counter moves when a parent refuses a fork or its OOM killer acts) is probed for real in
// run-budget-overcommit.test.ts; here every branch of the rule, including those a test with real runs cannot
// reach (the OOM killer takes the largest run, so a victim within its share needs memory held by others).

const PER_RUN = { processes: 30, memoryBytes: 100 * 2 ** 20 };

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

/** A sandbox cgroup whose files say what `files` says; any file left out is absent, as on an older kernel. */
function cgroupWith(files: Record<string, string>): SandboxCgroup {
  const root = mkdtempSync(join(tmpdir(), 'fusebox-cgroup-files-'));
  dirs.push(root);
  const [pids, memory] = [join(root, 'pids'), join(root, 'memory')];
  for (const dir of [pids, memory]) mkdirSync(dir);
  for (const [name, text] of Object.entries(files))
    writeFileSync(join(name.startsWith('pids.') ? pids : memory, name), `${text}\n`);
  return new SandboxCgroup([pids, memory], PER_RUN);
}

const quiet = { 'pids.events': 'max 0', 'pids.peak': '4', 'pids.max': '60' };
const noOom = {
  'memory.oom_control': 'oom_kill_disable 0\nunder_oom 0\noom_kill 0',
  'memory.failcnt': '0',
  'memory.max_usage_in_bytes': String(20 * 2 ** 20),
};

describe('whether the shared budget starved a run', () => {
  it('says so for forks refused while the run held less than its own cap and its share', () => {
    const cgroup = cgroupWith({ ...quiet, 'pids.events': 'max 3', ...noOom });
    expect(cgroup.starvedBySharedBudget()).toMatch(
      /shared process budget was full: the kernel refused this run 3 fork\(s\) while it held at most 4 of its own 60/,
    );
  });

  it('leaves refusals at the run’s own cap, or past its share, to the run', () => {
    expect(
      cgroupWith({ ...quiet, 'pids.events': 'max 9', 'pids.peak': '60', ...noOom }).starvedBySharedBudget(),
    ).toBeUndefined();
    expect(
      cgroupWith({ ...quiet, 'pids.events': 'max 9', 'pids.peak': '31', ...noOom }).starvedBySharedBudget(),
    ).toBeUndefined();
    // Control: nothing refused, nothing to say.
    expect(cgroupWith({ ...quiet, ...noOom }).starvedBySharedBudget()).toBeUndefined();
  });

  it('says nothing of forks where the kernel keeps no peak (before Linux 6.1)', () => {
    const { 'pids.peak': _, ...withoutPeak } = quiet;
    expect(
      cgroupWith({ ...withoutPeak, 'pids.events': 'max 3', ...noOom }).starvedBySharedBudget(),
    ).toBeUndefined();
  });

  it('says so for an OOM kill of a run within its own limit and its share', () => {
    const cgroup = cgroupWith({
      ...quiet,
      ...noOom,
      'memory.oom_control': 'oom_kill_disable 0\nunder_oom 0\noom_kill 1',
    });
    expect(cgroup.starvedBySharedBudget()).toMatch(
      /shared memory was full: the kernel's OOM killer ended 1 process\(es\) of this run while it held at most 20 MB/,
    );
  });

  it('leaves an OOM kill at the run’s own limit, or of a run that held past its share, to the run', () => {
    const killed = {
      ...quiet,
      ...noOom,
      'memory.oom_control': 'oom_kill_disable 0\nunder_oom 0\noom_kill 1',
    };
    expect(cgroupWith({ ...killed, 'memory.failcnt': '12' }).starvedBySharedBudget()).toBeUndefined();
    expect(
      cgroupWith({ ...killed, 'memory.max_usage_in_bytes': String(101 * 2 ** 20) }).starvedBySharedBudget(),
    ).toBeUndefined();
  });
});

describe('what happened since a reading (an interpreter, judged cell by cell)', () => {
  it('counts only the refusals and kills after it', () => {
    const earlier = cgroupWith({
      ...quiet,
      'pids.events': 'max 3',
      ...noOom,
      'memory.oom_control': 'oom_kill_disable 0\nunder_oom 0\noom_kill 1',
    });
    const before = earlier.starvationCounters();
    expect(before).toEqual({ refusedForks: 3, oomKills: 1 });
    // An earlier cell was starved; this one was not: nothing to say of it.
    expect(earlier.starvedBySharedBudget(before)).toBeUndefined();
    // Control: judged over the sandbox's whole life, the same files say starved.
    expect(earlier.starvedBySharedBudget()).toMatch(/refused this run 3 fork/);
    // Refused while this cell ran: said, with this cell's count only.
    const later = cgroupWith({ ...quiet, 'pids.events': 'max 5', ...noOom });
    expect(later.starvedBySharedBudget({ refusedForks: 3, oomKills: 0 })).toMatch(/refused this run 2 fork/);
  });
});

describe('the status of a starved run', () => {
  const step = (returnCode: number): CommandRunResult => ({
    status: 'Finished',
    execution_time: 0.1,
    return_code: returnCode,
    stdout: '',
    stderr: '',
  });

  it('is SandboxError, with the reason, where the run would have failed', () => {
    expect(runStatus([null, step(1)], 'starved')).toEqual({ status: 'SandboxError', message: 'starved' });
    expect(runStatus([null, step(1)])).toEqual({ status: 'Failed', message: '' });
  });

  it('stays Success for a run that succeeded all the same', () => {
    expect(runStatus([null, step(0)], 'starved')).toEqual({ status: 'Success', message: '' });
  });
});
