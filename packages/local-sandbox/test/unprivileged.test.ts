import { execFile, execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PROBE = fileURLToPath(new URL('./fixtures/unprivileged-probe.ts', import.meta.url));
const DELEGATE_CGROUPS = fileURLToPath(new URL('../bin/delegate-cgroups.sh', import.meta.url));
const NOBODY = '65534';
/** A uid nothing on this machine owns and no test delegates cgroups to. */
const UNDELEGATED = '65533';

/** Runs the probe under `prefix` (a command that changes who runs it) and parses what it printed. */
function runProbe(prefix: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const [command, ...args] = prefix;
    execFile(
      command as string,
      [...args, process.execPath, '--conditions=@fusebox/source', '--import', 'tsx', PROBE],
      { env: { PATH: process.env.PATH, HOME: '/tmp' }, timeout: 60_000 },
      (error, stdout, stderr) =>
        error
          ? reject(new Error(`${error.message}\n${stderr}`))
          : resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>),
    );
  });
}

const CONTAINED = {
  sysctl: expect.stringMatching(/^(EROFS|EACCES)$/) as string,
  driver_mem: 'EACCES',
  unshare_user: 'EPERM',
  own_file: 'ok',
};

describe('an executor run by an unprivileged user', () => {
  // As a non-root user the whole suite already runs this way; as root, this is the one place it is checked.
  it.runIf(process.getuid?.() === 0)(
    'isolates code the same way, with a delegated cgroup subtree: unprivileged bubblewrap, seccomp, masked /proc, host-side timeouts, the memory cap',
    async () => {
      execFileSync(DELEGATE_CGROUPS, [NOBODY], { stdio: 'pipe' });
      const seen = await runProbe([
        'setpriv',
        `--reuid=${NOBODY}`,
        `--regid=${NOBODY}`,
        '--clear-groups',
        '--',
      ]);
      expect(seen.uid).toBe(Number(NOBODY));
      // Not root, but with cgroups of its own beneath the delegated subtree: nothing to warn about, and a run
      // that asks for no memory limit is killed at the sandbox's cap.
      expect(seen.warnings).toEqual([]);
      expect(seen.probe).toEqual(CONTAINED);
      expect(seen.timeout).toBe('TimeLimitExceeded');
      expect(seen.memoryBomb).toBe(137);
      // No cgroups, yet each sandbox stops near its 64 processes (the driver, Python and its children count),
      // and the two apart: the cap is per sandbox, not per uid.
      for (const forked of seen.forked as number[]) expect(forked).toBeGreaterThanOrEqual(55);
      for (const forked of seen.forked as number[]) expect(forked).toBeLessThan(64);
    },
  );

  it.runIf(process.getuid?.() === 0)(
    'without a delegated cgroup subtree, says at start that the memory cap does not hold, and it does not',
    async () => {
      // A uid no subtree was delegated to; everything else holds as above.
      const seen = await runProbe([
        'setpriv',
        `--reuid=${UNDELEGATED}`,
        `--regid=${UNDELEGATED}`,
        '--clear-groups',
        '--',
      ]);
      expect(seen.warnings).toEqual([
        expect.stringMatching(
          new RegExp(
            `per-sandbox cgroups are unavailable \\(no cgroup subtree delegated to uid ${UNDELEGATED} .*delegate-cgroups\\.sh.*FUSEBOX_EXECUTOR_MEMORY_CAP_MB does not hold`,
          ),
        ) as string,
      ]);
      expect(seen.probe).toEqual(CONTAINED);
      expect(seen.memoryBomb).toBe(0);
      for (const forked of seen.forked as number[]) expect(forked).toBeLessThan(64);
    },
  );

  it.runIf(process.getuid?.() === 0)(
    'as root of a user namespace that does not map the sandbox ids (a container), runs code as its own uid and says so',
    async () => {
      // Only uid 0 exists in this namespace, as in a container whose user namespace maps a small range.
      const seen = await runProbe([
        'bwrap',
        '--dev-bind',
        '/',
        '/',
        '--unshare-user',
        '--uid',
        '0',
        '--gid',
        '0',
        '--',
      ]);
      expect(seen.uid).toBe(0);
      expect(seen.warnings).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/sandbox ids 1879048192-\d+ are not mapped/) as string,
        ]),
      );
      expect(seen.probe).toEqual(CONTAINED);
      expect(seen.timeout).toBe('TimeLimitExceeded');
    },
  );
});
